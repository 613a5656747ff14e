#!/usr/bin/env node
// Every link to a section of a page (`page.md#anchor`, or `#anchor` within a
// page) lands on a heading or an element that exists in the built book.
//
// mdbook-linkcheck2 checks that the page exists, not the part after `#`, so a
// renamed heading silently leaves its links pointing at the top of the page.
// This reads the Markdown under --src (files in sub-folders, such as the lab
// notes and the generated tables, are {{#include}}d by a page at the top, so
// their links are relative to book/src, as mdBook resolves them) and looks
// for id="anchor" in the page's HTML under --html.
//
//     node book/tests/anchors.mjs --src book/src --html book/book/html
//     node book/tests/anchors.mjs --self-test      prove it can fail
import fs from "node:fs";
import path from "node:path";

const LINK = /\]\(([\w\-./]*\.md)?#([^)\s]+)\)/g;

// pages: [{file, text}] (file relative to src); htmlOf(page.md) -> text or null.
export function check(pages, htmlOf) {
  const errors = [];
  for (const { file, text } of pages) {
    const own = file.includes("/") ? null : file;
    for (const m of text.matchAll(LINK)) {
      const target = m[1] ? path.posix.normalize(m[1]) : own;
      if (!target) continue; // an in-page link inside an included fragment
      const html = htmlOf(target);
      if (html === null) {
        errors.push(`${file}: links to ${target}#${m[2]}, but there is no ${target}`);
      } else if (!html.includes(`id="${m[2]}"`)) {
        errors.push(`${file}: links to ${target}#${m[2]}, but that page has no such anchor`);
      }
    }
  }
  return errors;
}

function markdownUnder(src) {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".md")) {
        out.push({ file: path.relative(src, full).split(path.sep).join("/"), text: fs.readFileSync(full, "utf8") });
      }
    }
  };
  walk(src);
  return out;
}

const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);

if (args.includes("--self-test")) {
  const pages = [
    { file: "a.md", text: "[ok](b.md#there) [bad](b.md#gone) [self](#here) [none](c.md#x)" },
    { file: "notes/n.md", text: "[bad](a.md#nowhere)" },
  ];
  const html = { "a.md": '<h2 id="here">', "b.md": '<h2 id="there">' };
  const errors = check(pages, (p) => html[p] ?? null);
  const want = ["b.md#gone", "c.md#x", "a.md#nowhere"];
  const missed = want.filter((w) => !errors.some((e) => e.includes(w)));
  if (missed.length || errors.length !== want.length) {
    console.error(`FAIL  anchors self-test: missed ${missed.join(", ") || "nothing"}; reported ${errors.length}`);
    process.exit(1);
  }
  console.log("ok    anchors self-test: a missing anchor, a missing page and an included file's link are reported");
  process.exit(0);
}

const src = arg("--src", "book/src");
const htmlDir = arg("--html", "book/book/html");
const errors = check(markdownUnder(src), (page) => {
  const file = path.join(htmlDir, page.replace(/\.md$/, ".html"));
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
});
for (const e of errors) console.log(`FAIL  ${e}`);
if (errors.length) process.exit(1);
console.log("ok    anchors: every page.md#anchor link lands on an element of the built page");
