#!/usr/bin/env node
// One source for every figure: book/src/appendix/figures.json holds the
// measurements the prose quotes (name -> value, the band low..high the prose
// states, unit, the command that measured it) and the quotes (page, exact
// text, figure). This checks both ways:
//
//   * every quote's text is on its page (whitespace-insensitive, as Markdown
//     wraps lines), so prose edited away from the file fails;
//   * every number in a quote lies inside its figure's band, so a quote
//     changed in both places to a figure the file does not support fails;
//   * every figure's measured value lies inside its band, so a new report run
//     that contradicts the prose fails;
//   * every quote names a figure with a band, and every band is quoted.
//
// The quotes of Chapters 7 to 9 are written by the report run itself (the
// page's words around the number it measured; see examples/report/
// measured.rs), so after a run every sentence still quoting an earlier run
// fails here until the prose says what the run measured.
//
//     node book/tests/figures.mjs [--src book/src]     check the book
//     node book/tests/figures.mjs --self-test          prove it can fail
//
// --self-test runs the same check on mutated copies (a quoted number changed
// on its page, a quote's number moved outside its band, a measured value
// moved outside its band) and passes only if each mutation is reported.
import fs from "node:fs";
import path from "node:path";

const args = process.argv.slice(2);
const srcAt = args.indexOf("--src");
const src = srcAt >= 0 ? args[srcAt + 1] : path.join(path.dirname(new URL(import.meta.url).pathname), "..", "src");
const selfTest = args.includes("--self-test");

const squash = (text) => text.replace(/\s+/g, " ");

// "40 to 50 µs" -> [40, 50]; "118,074" -> [118074]; "0.02" -> [0.02];
// "-1" -> [-1] (a minus sign at the start or after a space or bracket, so
// "ch07-io" and "2026-12-05" stay positive).
export function numbersIn(text) {
  return [...text.matchAll(/(?:(?<=^|[\s(])-)?\d[\d,]*(?:\.\d+)?/g)].map((m) => Number(m[0].replace(/,/g, "")));
}

export function check(data, readPage) {
  const errors = [];
  const figures = data.figures || {};
  const quoted = new Set();
  for (const [name, f] of Object.entries(figures)) {
    if (typeof f.value !== "number") {
      errors.push(`${name}: needs a numeric value`);
      continue;
    }
    // No band: a figure the report records that no prose quotes yet.
    if (f.low === undefined && f.high === undefined) continue;
    if (!(typeof f.low === "number" && typeof f.high === "number")) {
      errors.push(`${name}: needs numeric low and high`);
      continue;
    }
    if (f.value < f.low || f.value > f.high) {
      errors.push(`${name}: measured ${f.value} ${f.unit}, outside the band ${f.low} to ${f.high} the prose quotes`);
    }
  }
  const pages = new Map();
  for (const q of data.quotes || []) {
    const f = figures[q.figure];
    if (!f) {
      errors.push(`${q.page}: quote "${q.text}" names an unknown figure ${q.figure}`);
      continue;
    }
    quoted.add(q.figure);
    if (typeof f.low !== "number" || typeof f.high !== "number") {
      errors.push(`${q.page}: "${q.text}" quotes ${q.figure}, which has no band (low, high)`);
      continue;
    }
    if (!pages.has(q.page)) pages.set(q.page, squash(readPage(q.page) ?? ""));
    if (!pages.get(q.page).includes(squash(q.text))) {
      errors.push(`${q.page}: the quote "${q.text}" (figure ${q.figure}) is not on the page`);
    }
    const numbers = numbersIn(q.number ?? q.text);
    if (numbers.length === 0) errors.push(`${q.page}: the quote "${q.text}" has no number`);
    for (const n of numbers) {
      const scaled = n * (q.scale ?? 1);
      if (scaled < f.low || scaled > f.high) {
        errors.push(`${q.page}: "${q.text}" quotes ${scaled} ${f.unit}, outside ${q.figure}'s ${f.low} to ${f.high}`);
      }
    }
  }
  for (const [name, f] of Object.entries(figures)) {
    if (typeof f.low === "number" && !quoted.has(name)) {
      errors.push(`${name}: has a band but no quote names it`);
    }
  }
  return errors;
}

const dataPath = path.join(src, "appendix", "figures.json");
const data = JSON.parse(fs.readFileSync(dataPath, "utf8"));
const readPage = (page) => {
  try {
    return fs.readFileSync(path.join(src, page), "utf8");
  } catch {
    return null;
  }
};

if (!selfTest) {
  const errors = check(data, readPage);
  for (const e of errors) console.log(`FAIL  ${e}`);
  const n = (data.quotes || []).length;
  if (errors.length === 0) {
    console.log(`ok    figures: ${n} quotes of ${Object.keys(data.figures).length} figures, each on its page and inside its band`);
  }
  process.exit(errors.length === 0 ? 0 : 1);
}

// --self-test: each mutation must be caught.
for (const [text, want] of [["-1", [-1]], ["from -1 to 48", [-1, 48]], ["ch07-io", [7]], ["1,234.5", [1234.5]]]) {
  const got = numbersIn(text);
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    console.log(`FAIL  self-test: numbersIn("${text}") read ${JSON.stringify(got)}, not ${JSON.stringify(want)}`);
    process.exit(1);
  }
}
const clone = () => JSON.parse(JSON.stringify(data));
const first = data.quotes[0];
const mutations = [
  {
    what: `the quoted number changed on ${first.page}`,
    data: clone(),
    readPage: (page) => {
      const text = readPage(page);
      if (page !== first.page || text === null) return text;
      const changed = first.text.replace(/\d/, (d) => String((Number(d) + 1) % 10));
      return squash(text).split(squash(first.text)).join(changed);
    },
  },
  {
    what: "a quote moved outside its band (in the file and on the page)",
    data: (() => {
      const d = clone();
      const f = d.figures[first.figure];
      d.quotes[0].text = `${f.high * 10} ${f.unit}`;
      return d;
    })(),
    readPage: (page) => {
      const text = readPage(page);
      const f = data.figures[first.figure];
      return page === first.page ? `${text}\n${f.high * 10} ${f.unit}\n` : text;
    },
  },
  {
    what: "a measured value outside its band",
    data: (() => {
      const d = clone();
      const f = d.figures[first.figure];
      f.value = f.high * 2 + 1;
      return d;
    })(),
    readPage,
  },
];
let failed = 0;
const clean = check(data, readPage);
if (clean.length) {
  console.log(`FAIL  self-test: the real book should pass first:\n  ${clean.join("\n  ")}`);
  failed++;
}
for (const m of mutations) {
  const errors = check(m.data, m.readPage);
  if (errors.length === 0) {
    console.log(`FAIL  self-test: not caught: ${m.what}`);
    failed++;
  } else {
    console.log(`ok    self-test caught: ${m.what} (${errors[0]})`);
  }
}
process.exit(failed === 0 ? 0 : 1);
