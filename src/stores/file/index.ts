/**
 * The file stores of the CLI's dev instance: JSON files in one directory,
 * changed under a lock shared by processes (C3).
 * @module
 */
export { FileTokenStore, type FileStoreOptions } from './store';
export { FileMembershipStore } from './members';
export { JsonFile } from './json-file';

/** @internal for the folders above (each imports this folder through its index); the package root decides what is public. */
export { codeOf } from './fs-errors';
