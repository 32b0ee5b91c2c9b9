#!/usr/bin/env node
// The declarations of every package entry, made once: TypeScript emits .d.ts files for the library
// sources into a temporary folder (declarations only, no type check: `npm run typecheck` is the check),
// and one rollup-plugin-dts run bundles them per entry, written twice: dist/<entry>.d.ts for `import`
// and dist/<entry>.d.cts for `require`, sharing chunks within each set as the JavaScript does.
// tsup's own `dts` ran a whole TypeScript program per tsup build (three of them, most of the build time).
// Run by scripts/build.mjs; by hand: `node scripts/build-types.mjs`.
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';
const ENTRIES = JSON.parse(readFileSync(new URL('./build-entries.json', import.meta.url), 'utf8'));

const root = resolve(new URL('..', import.meta.url).pathname);

/** Emit declarations for the library sources (the entries and what they import) into `outDir`. */
function emitDeclarations(outDir) {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const rootNames = [...Object.values(ENTRIES.library), ...Object.values(ENTRIES.esmOnly)].map((f) => join(root, f));
  const program = ts.createProgram(rootNames, {
    ...options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    // The sources are type-checked by `npm run typecheck` (and lint); here only their declarations are wanted.
    noCheck: true,
    declarationMap: false,
    sourceMap: false,
    rootDir: join(root, 'src'),
    outDir,
  });
  const result = program.emit();
  const problems = ts.getPreEmitDiagnostics(program).concat(result.diagnostics);
  if (result.emitSkipped || problems.length) {
    const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
    throw new Error(`declaration emit failed:\n${ts.formatDiagnostics(problems, host)}`);
  }
}

/** `src/entries/x.ts` -> the emitted `<outDir>/entries/x.d.ts`. */
const emitted = (outDir, file) => join(outDir, file.replace(/^src\//, '').replace(/\.ts$/, '.d.ts'));

/** The export specifiers of a declaration file, each with the TSDoc written on it (or ''). */
function exportSpecifiers(fileName, text) {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out = [];
  for (const st of file.statements) {
    if (!ts.isExportDeclaration(st) || !st.exportClause || !ts.isNamedExports(st.exportClause)) continue;
    for (const el of st.exportClause.elements) {
      const doc = ts.getJSDocCommentsAndTags(el).filter(ts.isJSDoc);
      out.push({ name: el.name.text, start: el.getStart(file), doc: doc.map((d) => d.getText(file)).join('\n') });
    }
  }
  return out;
}

// A name an entry keeps for old imports is marked where it is re-exported (`export { /** @deprecated ... */ x }`
// in src/index.ts). rollup-plugin-dts rewrites those export lists and drops such comments, so they are
// read from TypeScript's output and written back onto the same names in each bundled entry.
function deprecationsOf(file) {
  return new Map(
    exportSpecifiers(file, readFileSync(file, 'utf8'))
      .filter((s) => /@deprecated\b/.test(s.doc))
      .map((s) => [s.name, s.doc]),
  );
}
function keepDeprecations(byEntry) {
  return {
    name: 'keep-deprecations',
    renderChunk(code, chunk) {
      const marks = chunk.isEntry ? byEntry.get(chunk.name) : undefined;
      if (!marks?.size) return null;
      let out = code;
      const found = new Set();
      for (const s of exportSpecifiers(chunk.fileName, code).reverse()) {
        const doc = marks.get(s.name);
        if (doc === undefined || s.doc) continue;
        found.add(s.name);
        out = `${out.slice(0, s.start)}${doc} ${out.slice(s.start)}`;
      }
      const lost = [...marks.keys()].filter((n) => !found.has(n));
      if (lost.length) throw new Error(`build-types: ${chunk.fileName} no longer re-exports ${lost.join(', ')} by name`);
      return { code: out, map: null };
    },
  };
}

export async function buildTypes({ outDir = join(root, 'dist') } = {}) {
  const tmp = mkdtempSync(join(tmpdir(), 'svc-auth-types-'));
  try {
    emitDeclarations(tmp);
    const input = Object.fromEntries(
      Object.entries({ ...ENTRIES.library, ...ENTRIES.esmOnly }).map(([name, file]) => [name, emitted(tmp, file)]),
    );
    const deprecations = new Map(Object.entries(input).map(([name, file]) => [name, deprecationsOf(file)]));
    // A shared chunk is named for its first module (`types.d.ts` -> `types-<hash>`), as tsup named them.
    const chunk = (ext) => (c) => `${c.name.replace(/\.d$/, '')}-[hash]${ext}`;
    const bundle = await rollup({
      input,
      // Packages (jose's types aside, which the declarations never name) stay imports, as in the JavaScript.
      external: (id) => !id.startsWith('.') && !id.startsWith('/'),
      plugins: [dts()],
      onwarn(warning, warn) {
        if (warning.code === 'CIRCULAR_DEPENDENCY') return;
        // One type is named by a public one without being exported itself, as before this script:
        // ThingMatcher (CompiledLayer's fields). Any other such type is reported.
        const known = /private shared type exports with no public re-export: ThingMatcher\./;
        if (warning.plugin === 'dts' && known.test(warning.message)) return;
        warn(warning);
      },
    });
    const esmOnly = new Set(Object.keys(ENTRIES.esmOnly));
    const outputs = await Promise.all([
      bundle.write({
        dir: outDir,
        format: 'es',
        entryFileNames: '[name].d.ts',
        chunkFileNames: chunk('.d.ts'),
        plugins: [keepDeprecations(deprecations)],
      }),
      bundle.write({
        dir: outDir,
        format: 'es',
        entryFileNames: '[name].d.cts',
        chunkFileNames: chunk('.d.cts'),
        // An ESM-only entry (svc-auth/testing) has no `require` declarations: package.json gives it one `types`.
        plugins: [
          keepDeprecations(deprecations),
          {
            name: 'esm-only-entries',
            generateBundle(_options, files) {
              for (const [fileName, file] of Object.entries(files))
                if (file.type === 'chunk' && file.isEntry && esmOnly.has(file.name)) delete files[fileName];
            },
          },
        ],
      }),
    ]);
    await bundle.close();
    return outputs.flatMap((o) => o.output.map((f) => f.fileName));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const started = Date.now();
  const files = await buildTypes();
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  console.log(`build-types: ${files.length} declaration files for ${pkg.name} in ${Date.now() - started} ms`);
}
