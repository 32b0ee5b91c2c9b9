#!/usr/bin/env node
// Type-checks every TypeScript example a user reads: fenced ```ts / ```typescript blocks in README.md
// and docs/**/*.md, and every @example block in src/**/*.ts. Each block becomes a module in a temp
// folder, compiled with tsc against the package's PUBLIC exports: `svc-auth` and every
// `svc-auth/<subpath>` map (tsconfig `paths`) to the src entry that package.json `exports` names, so a
// block can import only what a user can import. Free names a snippet leans on (`auth`, `token`, `req`
// ...) come from scripts/check-docs.prelude.d.ts, typed with public types only.
//
// A TSDoc @example that imports nothing may use the package's public names without importing them
// (the page it documents is the import); the script adds the imports, from the entry that exports
// each name. Markdown blocks are copied by users whole: they import what they use.
//
// A block opts out only with a marker right before it, which is reported:
//   markdown:  <!-- not-checked: reason -->       TSDoc: a line `not-checked: reason` inside @example
// @example blocks of @internal symbols, and of top-level symbols no package entry exports, are not
// user documentation (a user cannot import the name): they are counted, not compiled. Examples on
// members (methods, properties) of exported types are compiled.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

function walk(dir, ext) {
  let out = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== 'api' && name !== 'node_modules') out = out.concat(walk(full, ext));
    } else if (name.endsWith(ext)) out.push(full);
  }
  return out.sort();
}

/** package.json `exports` -> tsconfig paths onto the src entries (dist/index.js -> src/index.ts, dist/x.js -> src/entries/x.ts). */
function publicPaths() {
  const paths = {};
  for (const [sub, target] of Object.entries(pkg.exports ?? {})) {
    if (sub === './package.json') continue;
    const dist = typeof target === 'string' ? target : JSON.stringify(target).match(/"\.\/dist\/([^"]+?)\.(?:d\.c?ts|c?js)"/)?.[1];
    if (!dist) throw new Error(`check-docs: cannot find the dist file of export ${sub}`);
    const base = dist.replace(/^\.\/dist\//, '').replace(/\.(d\.c?ts|c?js)$/, '');
    const candidates = base === 'index' ? ['src/index.ts'] : [`src/entries/${base}.ts`];
    const src = candidates.find((c) => {
      try {
        return statSync(join(root, c)).isFile();
      } catch {
        return false;
      }
    });
    if (!src) throw new Error(`check-docs: no src entry for export ${sub} (tried ${candidates.join(', ')})`);
    paths[sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`] = [join(root, src)];
  }
  return paths;
}

/**
 * Every name a user can import from some package entry (TypeScript's own view of the exports), with the
 * entry to import it from: the root's, unless the root keeps the name only as a deprecated alias of a
 * subpath's (src/index.ts marks its export specifier `@deprecated Import from 'svc-auth/<subpath>'`);
 * then the subpath's.
 * Also returns the deprecated root aliases (name -> the subpath their TSDoc points to).
 */
async function publicNames(paths) {
  const ts = (await import('typescript')).default;
  const entries = Object.values(paths).flat();
  const program = ts.createProgram(entries, {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const names = new Map(); // name -> module specifier
  const deprecated = new Map(); // root name -> where it moved
  for (const [spec, [e]] of Object.entries(paths).sort(([a], [b]) => a.length - b.length)) {
    const sym = checker.getSymbolAtLocation(program.getSourceFile(e));
    if (!sym) continue;
    for (const x of checker.getExportsOfModule(sym)) {
      const tag = spec === pkg.name ? x.getJsDocTags(checker).find((t) => t.name === 'deprecated') : undefined;
      if (tag) {
        const text = ts.displayPartsToString(tag.text);
        deprecated.set(x.getName(), /'(svc-auth\/[^']+)'/.exec(text)?.[1] ?? text);
      } else if (!names.has(x.getName())) names.set(x.getName(), spec);
    }
  }
  for (const [name, to] of deprecated)
    if (!names.has(name)) throw new Error(`check-docs: ${name} is deprecated at the root, but ${to} does not export it`);
  return { names, deprecated };
}

/**
 * The deprecated root aliases a piece of code imports: named imports, `import type`, `require`
 * destructuring, and members of a namespace import of 'svc-auth'.
 */
function deprecatedImports(code) {
  const found = new Set();
  const spec = `['"]${pkg.name}['"]`;
  const listed = (list) =>
    list.split(',').map(
      (n) =>
        n
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+|\s*:\s*/)[0],
    );
  const lists = [
    ...code.matchAll(new RegExp(`import\\s+(?:type\\s+)?(?:[\\w$]+\\s*,\\s*)?\\{([^}]*)\\}\\s*from\\s*${spec}`, 'g')),
    ...code.matchAll(new RegExp(`(?:const|let|var)\\s*\\{([^}]*)\\}\\s*=\\s*(?:await\\s+import|require)\\(\\s*${spec}\\s*\\)`, 'g')),
  ];
  for (const m of lists) for (const n of listed(m[1])) if (deprecatedRoot.has(n)) found.add(n);
  for (const m of code.matchAll(new RegExp(`import\\s+(?:type\\s+)?\\*\\s+as\\s+([\\w$]+)\\s+from\\s*${spec}`, 'g')))
    for (const u of code.matchAll(new RegExp(`(?<![\\w$.])${m[1].replace(/\$/g, '\\$')}\\.([\\w$]+)`, 'g')))
      if (deprecatedRoot.has(u[1])) found.add(u[1]);
  return [...found];
}
function withImplicitImports(code) {
  if (/^\s*import\s/m.test(code)) return code;
  const bySpec = new Map();
  for (const [name, spec] of exported) {
    if (!new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(code)) continue;
    bySpec.set(spec, [...(bySpec.get(spec) ?? []), name]);
  }
  const lines = [...bySpec].map(([spec, ns]) => `import { ${ns.join(', ')} } from '${spec}';`);
  return `${lines.join('\n')}\n${code}`;
}
const { names: exported, deprecated: deprecatedRoot } = await publicNames(publicPaths());
const oldImports = []; // { where, names }: code users read that imports a deprecated root alias
const DECL =
  /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|class|const|let|var|interface|type|enum)\s+([A-Za-z_$][\w$]*)/;
let private_ = 0;

const blocks = []; // { where, code }
const skipped = []; // { where, reason }
let internal = 0;

// Markdown: README.md and docs/**/*.md.
const mdFiles = [
  join(root, 'README.md'),
  ...(() => {
    try {
      return walk(join(root, 'docs'), '.md');
    } catch {
      return [];
    }
  })(),
];
for (const file of mdFiles) {
  const lines = readFileSync(file, 'utf8').split('\n');
  // Any fenced block, in any language and checked or not, is code a user copies.
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*```/.test(lines[i])) continue;
    let j = i + 1;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j])) j++;
    const names = deprecatedImports(lines.slice(i + 1, j).join('\n'));
    if (names.length) oldImports.push({ where: `${relative(root, file)}:${i + 1}`, names });
    i = j;
  }
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(ts|typescript)\s*$/.exec(lines[i]);
    if (!open) continue;
    let j = i + 1;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j])) j++;
    const where = `${relative(root, file)}:${i + 1}`;
    let k = i - 1;
    while (k >= 0 && lines[k].trim() === '') k--;
    const marker = k >= 0 ? /<!--\s*not-checked:\s*(.+?)\s*-->/.exec(lines[k]) : null;
    if (marker) skipped.push({ where, reason: marker[1] });
    else blocks.push({ where, code: lines.slice(i + 1, j).join('\n') });
    i = j;
  }
}

// TSDoc: every @example in src/**/*.ts.
for (const file of walk(join(root, 'src'), '.ts')) {
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/\/\*\*([\s\S]*?)\*\//g)) {
    const body = m[1].split('\n').map((l) => l.replace(/^\s*\* ?/, ''));
    const isInternal = body.some((l) => /@internal\b/.test(l));
    const after = text.slice(m.index + m[0].length).replace(/^[ \t]*\r?\n/, '');
    const topLevel = !/^\s/.test(after);
    const declared = DECL.exec(after)?.[1];
    // A member's example is public when the class or interface around it is.
    const owner = topLevel
      ? declared
      : [
          ...text.slice(0, m.index).matchAll(/^export\s+(?:declare\s+)?(?:abstract\s+)?(?:class|interface)\s+([A-Za-z_$][\w$]*)/gm),
        ].pop()?.[1];
    // A package entry's module comment (src/index.ts, src/entries/*.ts) documents the entry itself.
    const entryDoc = body.some((l) => /^@module\b/.test(l.trim())) && /^src\/(index\.ts|entries\/[^/]+\.ts)$/.test(relative(root, file));
    const isPrivate = !entryDoc && !after.startsWith('@module') && !(owner && exported.has(owner));
    for (let i = 0; i < body.length; i++) {
      if (!/^@example\b/.test(body[i].trim())) continue;
      let j = i + 1;
      while (j < body.length && !/^```(ts|typescript)?\s*$/.test(body[j].trim())) j++;
      let end = j + 1;
      while (end < body.length && body[end].trim() !== '```') end++;
      const line = text.slice(0, m.index).split('\n').length + i;
      const where = `${relative(root, file)}:${line}`;
      const code = body.slice(j + 1, end);
      const names = deprecatedImports(code.join('\n'));
      if (names.length) oldImports.push({ where, names });
      const marker = body
        .slice(i, j)
        .concat(code.slice(0, 1))
        .map((l) => /not-checked:\s*(.+)/.exec(l))
        .find(Boolean);
      if (isInternal) internal++;
      else if (isPrivate) private_++;
      else if (marker) skipped.push({ where, reason: marker[1].trim() });
      else if (j < body.length) blocks.push({ where, code: withImplicitImports(code.join('\n')) });
      i = end;
    }
  }
}

// The examples users copy whole (examples/*.ts; ESLint's no-deprecated sees them too).
for (const file of walk(join(root, 'examples'), '.ts')) {
  const names = deprecatedImports(readFileSync(file, 'utf8'));
  if (names.length) oldImports.push({ where: relative(root, file), names });
}
if (oldImports.length) {
  for (const o of oldImports)
    console.error(`${o.where}: imports ${o.names.map((n) => `${n} (now in ${deprecatedRoot.get(n)})`).join(', ')} from '${pkg.name}'`);
  console.error(
    `check-docs: ${oldImports.length} piece(s) of documentation import a name the root keeps only as a deprecated alias: import it from its subpath`,
  );
  process.exit(1);
}
console.log(`check-docs: no documentation imports one of the ${deprecatedRoot.size} deprecated root aliases`);

// Inside node_modules so a block's own imports of the frameworks it shows (hono, fastify, the MCP SDK,
// zod) resolve the way they do in a user's project.
const work = mkdtempSync(join(root, 'node_modules', '.svc-auth-docs-'));
try {
  mkdirSync(join(work, 'ex'));
  const names = blocks.map((b, n) => {
    const file = `ex/example_${String(n).padStart(4, '0')}.ts`;
    // `export {}` makes every block a module, so blocks never see each other's names.
    writeFileSync(join(work, file), `${b.code}\nexport {};\n`);
    return file;
  });
  writeFileSync(
    join(work, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2022'],
        module: 'ESNext',
        moduleResolution: 'Bundler',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(root, 'node_modules/@types')],
        allowImportingTsExtensions: true,
        noUnusedLocals: false,
        baseUrl: root,
        paths: publicPaths(),
      },
      files: [join(root, 'scripts/check-docs.prelude.d.ts'), ...names.map((f) => join(work, f))],
    }),
  );
  let output = '';
  let failed = false;
  try {
    execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(work, 'tsconfig.json'), '--pretty', 'false'], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (err) {
    failed = true;
    output = `${err.stdout ?? ''}${err.stderr ?? ''}`;
  }
  // Point each error at the block it came from; errors inside src mean the examples broke the library's types.
  const byBlock = new Map();
  for (const line of output.split('\n').filter(Boolean)) {
    const m = /example_(\d{4})\.ts\((\d+),(\d+)\): (.*)$/.exec(line);
    if (m) {
      const b = blocks[Number(m[1])];
      const list = byBlock.get(b.where) ?? [];
      list.push(`  line ${m[2]}: ${m[4]}`);
      byBlock.set(b.where, list);
    } else if (!/^\s/.test(line)) byBlock.set(line, []);
  }
  for (const s of skipped) console.log(`check-docs: not checked ${s.where} (${s.reason})`);
  console.log(
    `check-docs: ${blocks.length} blocks type-checked, ${skipped.length} opted out, ${internal} @internal and ${private_} module-private examples not compiled`,
  );
  if (failed) {
    for (const [where, errs] of byBlock) console.error(`${where}\n${errs.join('\n')}`);
    console.error(`check-docs: ${byBlock.size} example(s) do not compile against the public exports`);
    process.exit(1);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
