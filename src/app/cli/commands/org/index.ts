/**
 * The `svc org` group (G1-G4, W1): policy, requests, tokens, service accounts.
 * @module
 */
import type { Command } from '../../command';
import { orgPolicy } from './policy';
import { orgRequests } from './requests';
import { orgTokens } from './tokens';
import { orgServiceAccounts } from './service-accounts';

/** The `org` group, in help order; each command has its actions (`svc org policy get`). */
export const orgCommands: readonly (Command & { actions: readonly Command[] })[] = [orgPolicy, orgRequests, orgTokens, orgServiceAccounts];
