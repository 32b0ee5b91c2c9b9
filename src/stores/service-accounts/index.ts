export type { MachineClientRecord, PublicJwk, ServiceAccountRecord, ServiceAccountStore } from './types';
export { checkServiceAccount, MAX_MACHINE_CLIENTS, ServiceAccountTable } from './table';
