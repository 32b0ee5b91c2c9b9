/**
 * Service accounts (W1, W2): an org admin's face for machines, `client(p).org(o).serviceAccounts` and
 * `.serviceAccount(n)` (its tokens and machine clients), and what the authorization server asks of
 * machine clients. The roles of an account's credentials are read on the request path
 * (authenticate/accounts.ts).
 * @module
 */
export { serviceAccountsApi, serviceAccountApi } from './api';
export { machineClients } from './clients';
