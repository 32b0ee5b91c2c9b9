/**
 * The memory store: token records in this process's memory, lost on exit.
 * @module
 */
export { MemoryTokenStore } from './store';
