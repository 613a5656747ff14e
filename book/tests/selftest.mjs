// The checkers can fail: compares what they reported on the broken fixture
// book with the defects it was built with.
//
// `run --self-test` builds book/tests/fixtures/broken-book, runs browser.mjs
// (with its quiz checks), lint-fences.mjs (inline listings and captions) and
// anchors.mjs (section links, the quizzes' too) on it exactly as on the real
// book, and passes their JSON reports here. Each defect listed in the fixture's expect.mjs must be
// reported (some problem of that check and page matches its pattern), and
// every problem reported must be one of the listed defects: a checker that
// misses a defect, or one that fails what is correct (the fixture's good
// page), fails the self-test. Ends with "self-test: N passed, M failed".
//
//     node selftest.mjs --expect fixtures/broken-book/expect.mjs \
//         --browser browser-report.json --fences fences-report.json \
//         [--anchors anchors-report.json]

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = {};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) args[argv[i].replace(/^--/, '')] = argv[i + 1];
for (const required of ['expect', 'browser', 'fences']) {
    if (!args[required]) {
        console.error(`selftest.mjs: --${required} is required`);
        process.exit(2);
    }
}

const { defects } = await import(pathToFileURL(path.resolve(args.expect)).href);
const readReport = (file) => {
    if (!fs.existsSync(file)) {
        console.error(`selftest.mjs: ${file} was not written: the checker did not run to its end`);
        process.exit(1);
    }
    return JSON.parse(fs.readFileSync(file, 'utf8'));
};

// Every problem reported, as { check, page, problem }.
const reported = [];
const browser = readReport(args.browser);
for (const r of browser.results) {
    for (const problem of r.problems) reported.push({ check: r.check, page: r.page, problem });
}
// lint-fences.mjs reports two checks: inline listings ("fences") and captions.
for (const o of readReport(args.fences).offenders) {
    reported.push({ check: o.check || 'fences', page: o.page, problem: `${o.line}: ${o.message}` });
}
if (args.anchors) {
    for (const o of readReport(args.anchors).offenders) reported.push(o);
}

let passed = 0;
let failed = 0;
console.log('Deliberate defects, each of which must be reported:');
for (const d of defects) {
    const hit = reported.find((r) => r.check === d.check && r.page === d.page && d.detail.test(r.problem));
    if (hit) {
        passed++;
        console.log(`ok   detected ${d.check} ${d.page}: ${hit.problem}`);
    } else {
        failed++;
        console.log(`FAIL missed   ${d.check} ${d.page}: nothing matched ${d.detail}`);
    }
}

console.log('Problems reported, each of which must be a deliberate defect:');
for (const r of reported) {
    const known = defects.some((d) => r.check === d.check && r.page === d.page && d.detail.test(r.problem));
    if (known) {
        passed++;
    } else {
        failed++;
        console.log(`FAIL unexpected ${r.check} ${r.page}: ${r.problem}`);
    }
}
if (reported.every((r) => defects.some((d) => r.check === d.check && r.page === d.page && d.detail.test(r.problem)))) {
    console.log(`ok   all ${reported.length} reported problem(s) are deliberate defects`);
}

// The checks that must have run on what is correct, and passed there.
const mustPass = [
    ...['http', 'screenshot', 'mermaid', 'images', 'listings', 'captions', 'clipboard', 'quiz', 'console'].map((check) => ({ check, page: 'good.html' })),
    { check: 'quiz-file', page: 'good.md' },
    { check: 'search', page: '"quantum flux capacitor"' },
    { check: 'search', page: '"gravitonflux"' },
];
let notPassing = 0;
for (const { check, page } of mustPass) {
    const r = browser.results.find((g) => g.check === check && g.page === page);
    if (r && r.ok) {
        passed++;
    } else {
        failed++;
        notPassing++;
        console.log(`FAIL ${check} ${page}: ${r ? 'failed' : 'did not run'}, but must pass`);
    }
}
if (notPassing === 0) console.log(`ok   all ${mustPass.length} check(s) of what is correct passed (good.html, its quiz file, two searches)`);
if (browser.timedOut) {
    failed++;
    console.log('FAIL the browser checks stopped at their time limit');
}

console.log(`self-test: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
