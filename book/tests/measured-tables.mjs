#!/usr/bin/env node
// Every measured table of Chapters 7 to 9 comes from one report run:
// `cargo run --release -p chapter-07 --example report` writes each into
// book/src/generated/measured/<page>-<table>.md, and the page includes it
// with {{#include generated/measured/...}}. This check fails when a page of
// Chapters 7 to 9 (ch07-*.md, ch08-*.md, ch09-*.md) holds a measured table
// of its own, pasted in by hand, so such a table cannot come back.
//
// A table (Markdown, outside code fences) counts as measured when its header
// names a unit (ms, µs, ns, /s, KiB, MiB, ratio, msgs, requests, ...), or
// when most of its cells, first column aside, are figures: a number (not a
// bare one- or two-digit index), alone or with a unit or a range. Tables
// of claims, options or files are words.
//
// It also checks that every include of generated/measured/ names a file
// that exists and opens with the caption line naming its host
// ("*Measured on ...").
//
//     node book/tests/measured-tables.mjs [--src book/src]
//     node book/tests/measured-tables.mjs --self-test     prove it can fail
//
// Cost: reads about 20 pages; well under a second.
import fs from "node:fs";
import path from "node:path";

const args = process.argv.slice(2);
const srcAt = args.indexOf("--src");
const src = srcAt >= 0 ? args[srcAt + 1] : path.join(path.dirname(new URL(import.meta.url).pathname), "..", "src");
const selfTest = args.includes("--self-test");

// Tables a report run cannot produce, kept on their page by hand, each with
// why. Keyed by page and the header's first cells.
export const KEPT = [
  {
    page: "ch07-racing-tokio.md",
    header: "| workload | cell aligned to 64 bytes |",
    why: "two builds that differ in the task cell's alignment: one run of one build cannot make it",
  },
];

const UNIT_IN_HEADER = /(\bms\b|µs|\bns\b|\/s\b|\bKiB\b|\bMiB\b|\bratio\b|msgs|requests|per op|per message|per connection|latency|throughput|p50|p99|interleavings)/i;
const FIGURE = /^[~<>≈+-]?\d[\d,]*(\.\d+)?\s*(%|ms|µs|ns|s|KiB|MiB|GiB|bytes|MiB\/s)?(\s*(\(|to|–|\/).*)?$/;

// Markdown tables outside fences: [{line, header, rows}].
export function tables(text) {
  const out = [];
  let fence = null;
  let current = null;
  text.split("\n").forEach((line, i) => {
    const fenceMark = line.match(/^\s*(```+|~~~+)/);
    if (fenceMark) {
      if (fence === null) fence = fenceMark[1];
      else if (line.trim().startsWith(fence)) fence = null;
      current = null;
      return;
    }
    if (fence !== null) return;
    if (/^\s*\|/.test(line)) {
      if (current === null) {
        current = { line: i + 1, header: line.trim(), rows: [] };
        out.push(current);
      } else if (!/^\s*\|[\s:|-]+\|\s*$/.test(line)) {
        current.rows.push(line.trim());
      }
    } else {
      current = null;
    }
  });
  return out;
}

const cells = (row) => row.replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());

export function isMeasured(table) {
  if (UNIT_IN_HEADER.test(table.header)) return true;
  let figures = 0;
  let all = 0;
  for (const row of table.rows) {
    for (const cell of cells(row).slice(1)) {
      if (cell === "") continue;
      all++;
      // A bare one- or two-digit number is an index or a count in an
      // illustration (the queue's slots), not a measurement.
      const c = cell.replace(/`/g, "");
      if (FIGURE.test(c) && !/^\d{1,2}$/.test(c)) figures++;
    }
  }
  return all > 0 && figures / all > 0.5;
}

const isKept = (page, table) => KEPT.some((k) => k.page === page && table.header.startsWith(k.header));

export function check(readPage, pages, exists) {
  const errors = [];
  for (const page of pages) {
    const text = readPage(page);
    for (const t of tables(text)) {
      if (isMeasured(t) && !isKept(page, t)) {
        errors.push(
          `${page}:${t.line}: a measured table pasted into the page (${t.header.slice(0, 60)}...): ` +
            "make the report example write it to generated/measured/ and include that file",
        );
      }
    }
    for (const m of text.matchAll(/\{\{#include (generated\/measured\/[^}\s]+)\}\}/g)) {
      const body = exists(m[1]);
      if (body === null) errors.push(`${page}: includes ${m[1]}, which does not exist`);
      else if (!/^\*Measured on [^,]+,/m.test(body)) {
        errors.push(`${page}: ${m[1]} has no caption line naming its host ("*Measured on ...")`);
      }
    }
  }
  return errors;
}

const chapterPages = (dir) =>
  fs
    .readdirSync(dir)
    .filter((f) => /^ch0[789]-.*\.md$/.test(f))
    .sort();
const read = (page) => fs.readFileSync(path.join(src, page), "utf8");
const exists = (rel) => {
  try {
    return fs.readFileSync(path.join(src, rel), "utf8");
  } catch {
    return null;
  }
};

const pages = chapterPages(src);
if (!selfTest) {
  const errors = check(read, pages, exists);
  for (const e of errors) console.log(`FAIL  ${e}`);
  if (errors.length === 0) {
    const included = pages.map((p) => (read(p).match(/generated\/measured\//g) || []).length).reduce((a, b) => a + b, 0);
    console.log(`ok    measured tables: ${pages.length} pages of Chapters 7 to 9, ${included} tables included from generated/measured, none pasted`);
  }
  process.exit(errors.length === 0 ? 0 : 1);
}

// --self-test: a generated table pasted back into its page must be caught,
// and so must an include of a missing file; the real book must pass.
let failed = 0;
const clean = check(read, pages, exists);
if (clean.length) {
  console.log(`FAIL  self-test: the real book should pass first:\n  ${clean.join("\n  ")}`);
  failed++;
}
const measuredDir = path.join(src, "generated", "measured");
for (const file of fs.readdirSync(measuredDir).filter((f) => f.endsWith(".md"))) {
  const page = pages.find((p) => read(p).includes(`generated/measured/${file}`));
  if (!page) {
    console.log(`FAIL  self-test: no page includes generated/measured/${file}`);
    failed++;
    continue;
  }
  const pasted = (p) =>
    p === page ? read(p).replace(`{{#include generated/measured/${file}}}`, fs.readFileSync(path.join(measuredDir, file), "utf8")) : read(p);
  if (check(pasted, pages, exists).length === 0) {
    console.log(`FAIL  self-test: not caught: ${file} pasted into ${page}`);
    failed++;
  }
}
const missing = check(read, pages, (rel) => (rel.endsWith(".md") && rel.includes("ch09") ? null : exists(rel)));
if (!missing.some((e) => e.includes("does not exist"))) {
  console.log("FAIL  self-test: not caught: an include of a missing file");
  failed++;
}
if (failed === 0) console.log("ok    self-test: every generated table, pasted back into its page, is caught; so is a missing include");
process.exit(failed === 0 ? 0 : 1);
