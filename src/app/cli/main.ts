#!/usr/bin/env node
/**
 * The `svc` program (bin entry): runs {@link runCli} on the process's
 * arguments and environment and exits with its code.
 * @module
 */
import { runCli } from './run';

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  isTTY: process.stdout.isTTY === true,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
process.exitCode = code;
