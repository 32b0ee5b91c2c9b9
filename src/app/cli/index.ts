/**
 * The `svc` program (its bin entry is main.ts): {@link runCli} runs it in
 * process, on arguments and an environment it is given.
 * @module
 */
export { runCli } from './run';

/** @internal for the tests (each imports this folder through its index): the parser, the commands and the token table. */
export { parseFlags } from './args';
export { authCommands, memberCommands, orgCommands, serveCommand, tokenCommands } from './commands';
export { expiryText, lastUsedText, relativeText, tokenTable } from './output';
