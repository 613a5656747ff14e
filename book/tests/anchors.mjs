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
// It also reads the quizzes (the TOML files under --quizzes, by default
// book/quizzes beside --src). mdbook-quiz renders their text in the reader's
// browser, where mdBook does not rewrite `.md` links, so a quiz links to
// `page.html#anchor` (a bare `#anchor` is the page of the quiz's own name);
// each must land on an anchor of the built page, and a `.md` link fails.
//
//     node book/tests/anchors.mjs --src book/src --html book/book/html [--report FILE]
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

const QUIZ_LINK = /\]\(([\w\-./]*\.(?:html|md))?#([^)\s]+)\)|\]\(([\w\-./]*\.md)\)/g;

// quizzes: [{file, text}] (file: the quiz's name, quizzes/PAGE.toml); the
// page the quiz sits on is PAGE.md. htmlOf as for check().
export function checkQuizzes(quizzes, htmlOf) {
  const errors = [];
  for (const { file, text } of quizzes) {
    const own = path.posix.basename(file).replace(/\.toml$/, ".md");
    for (const m of text.matchAll(QUIZ_LINK)) {
      if (m[3] || (m[1] && m[1].endsWith(".md"))) {
        const md = m[3] || m[1];
        errors.push(`${file}: links to ${md}${m[2] ? "#" + m[2] : ""}; a quiz's text is rendered by mdbook-quiz, so link ${md.replace(/\.md$/, ".html")}${m[2] ? "#" + m[2] : ""}`);
        continue;
      }
      const target = m[1] ? path.posix.normalize(m[1]).replace(/\.html$/, ".md") : own;
      const shown = target.replace(/\.md$/, ".html");
      const html = htmlOf(target);
      if (html === null) {
        errors.push(`${file}: links to ${shown}#${m[2]}, but there is no ${shown}`);
      } else if (!html.includes(`id="${m[2]}"`)) {
        errors.push(`${file}: links to ${shown}#${m[2]}, but that page has no such anchor`);
      }
    }
  }
  return errors;
}

function quizzesUnder(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(".toml"))
    .sort()
    .map((name) => ({ file: `quizzes/${name}`, text: fs.readFileSync(path.join(dir, name), "utf8") }));
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
  const quizzes = [
    { file: "quizzes/a.toml", text: 'context = "[ok](b.html#there) [bad](b.html#lost) [md](b.md#there) [self](#here) [own](#none)"' },
  ];
  const errors = [...check(pages, (p) => html[p] ?? null), ...checkQuizzes(quizzes, (p) => html[p] ?? null)];
  const want = ["b.md#gone", "c.md#x", "a.md#nowhere", "b.html#lost", "links to b.md#there", "a.html#none"];
  const missed = want.filter((w) => !errors.some((e) => e.includes(w)));
  if (missed.length || errors.length !== want.length) {
    console.error(`FAIL  anchors self-test: missed ${missed.join(", ") || "nothing"}; reported ${errors.length}`);
    process.exit(1);
  }
  console.log("ok    anchors self-test: a missing anchor, a missing page, an included file's link and a quiz's bad links are reported");
  process.exit(0);
}

const src = arg("--src", "book/src");
const htmlDir = arg("--html", "book/book/html");
const quizDir = arg("--quizzes", path.join(src, "..", "quizzes"));
const report = arg("--report", null);
const htmlOf = (page) => {
  const file = path.join(htmlDir, page.replace(/\.md$/, ".html"));
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
};
const quizzes = quizzesUnder(quizDir);
const errors = [...check(markdownUnder(src), htmlOf), ...checkQuizzes(quizzes, htmlOf)];
for (const e of errors) console.log(`FAIL  ${e}`);
if (report) {
  // For the self-test: each error as { check, page, problem }.
  const offenders = errors.map((e) => {
    const at = e.indexOf(": ");
    return { check: "anchors", page: e.slice(0, at), problem: e.slice(at + 2) };
  });
  fs.writeFileSync(report, JSON.stringify({ offenders }, null, 2));
}
if (errors.length) process.exit(1);
console.log(`ok    anchors: every page.md#anchor link lands on an element of the built page, and every link of the ${quizzes.length} quiz(zes)`);
