#!/usr/bin/env node
// The translations are complete and say the same things as the English:
// for each catalogue book/po/LANG.po,
//
//   coverage   every message of the English book (the template mdbook-xgettext
//              makes from book/src, with {{#include}} left unexpanded, as
//              book/TRANSLATING.md says) has a translation, none is marked
//              fuzzy, and the catalogue holds no message the book no longer
//              has (run msgmerge);
//   protected  each translation keeps its message's inline code, link targets,
//              URLs, {{#...}} directives (a quiz directive names the
//              language's own quiz file), HTML tags and footnote marks, and as
//              many ** as the English;
//   diagrams   a diagram (one message, context "diagram", see i18n/diagrams.mjs)
//              keeps its lines, node ids, keywords and arrows;
//   headings   a translated section heading (## and below) ends with the
//              English heading's id,
//              `{#id}`, so that links, quizzes and the language picker land on
//              the same section in every language (checked against the
//              English book's HTML when it is built);
//   quizzes    book/quizzes/LANG/PAGE.toml exists for every English quiz, with
//              the same questions (type, id, fields, numbers) and the same
//              code and links in every string.
//
// It prints one coverage line per language and every problem, and exits 1 if
// there is any (2 on a usage error).
//
//     node book/tests/i18n.mjs [--book book] [--pot FILE] [LANG ...]
//     node book/tests/i18n.mjs --write-pot FILE  write the template (for msgmerge)
//     node book/tests/i18n.mjs --self-test       prove each check can fail
//
// Without --pot it makes the template itself (mdbook with mdbook-xgettext,
// from mdbook-i18n-helpers 0.4.0, must be installed).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parse as parseToml } from "smol-toml";
import { parsePo } from "../i18n/po.mjs";
import { CONTEXT as DIAGRAM, potText as diagramPot, skeleton } from "../i18n/diagrams.mjs";

// ---------------------------------------------------------------- PO files

const keyOf = (e) => (e.msgctxt ? e.msgctxt + "\u0004" : "") + e.msgid;

// ---------------------------------------------------------------- protected parts

// The parts of a message a translation must keep, as a multiset (a Map of
// counts). `lang` rewrites the quiz directive to the language's quiz file.
export function protectedParts(text, lang = null) {
  const parts = new Map();
  const add = (k) => parts.set(k, (parts.get(k) || 0) + 1);
  const bare = text.replace(/(`+)([\s\S]+?)\1/g, (all) => {
    add("code " + all);
    return "";
  });
  for (const m of bare.matchAll(/\]\(([^)\s]+)/g)) add("link " + m[1]);
  for (const m of bare.matchAll(/^\[[^\]]+\]:\s*(\S+)/gm)) add("linkdef " + m[1]);
  for (const m of bare.matchAll(/\{\{#[^}]*\}\}/g)) {
    let d = m[0];
    if (lang) d = d.replace(/^\{\{#quiz \.\.\/quizzes\/([\w-]+\.toml)\}\}$/, `{{#quiz ../quizzes/${lang}/$1}}`);
    add("directive " + d);
  }
  for (const m of bare.matchAll(/<\/?[a-zA-Z][^>]*>/g)) {
    add("tag " + m[0].replace(/\s(alt|title|aria-label)="[^"]*"/g, ""));
  }
  for (const m of bare.matchAll(/\[\^[^\]]+\]/g)) add("footnote " + m[0]);
  for (const m of bare.matchAll(/https?:\/\/[^\s)>\]]+/g)) add("url " + m[0].replace(/[.,]+$/, ""));
  add(`bold x${(text.match(/\*\*/g) || []).length}`);
  return parts;
}

function diff(a, b) {
  const only = (x, y) =>
    [...x].filter(([k, n]) => (y.get(k) || 0) < n).map(([k]) => k);
  return { english: only(a, b), translation: only(b, a) };
}

// ---------------------------------------------------------------- the checks

// The heading messages of the template: msgid -> [{page, id}], from the
// Markdown line each reference points at (outside fenced code), the id as the
// English book's HTML has it (null when the book is not built).
export function headingsOf(pot, srcDir, htmlDir) {
  const lines = new Map();
  const sourceLines = (file) => {
    if (!lines.has(file)) {
      let fence = null;
      const out = fs.readFileSync(path.join(srcDir, file), "utf8").split("\n").map((l) => {
        const m = l.match(/^\s*(`{3,}|~{3,})/);
        if (fence === null && m) {
          fence = m[1];
          return "";
        }
        if (fence !== null) {
          if (l.trim().startsWith(fence) && l.trim().replaceAll(fence[0], "") === "") fence = null;
          return "";
        }
        return l;
      });
      lines.set(file, out);
    }
    return lines.get(file);
  };
  const headings = new Map();
  for (const e of pot) {
    if (!e.msgid || e.msgid.endsWith("\n")) continue;
    for (const ref of e.refs) {
      const m = ref.match(/^src\/(.+\.md):(\d+)$/);
      if (!m || m[1] === "SUMMARY.md") continue;
      const line = sourceLines(m[1])[Number(m[2]) - 1] || "";
      // Below the page's title: the title (`# `) is also the page's name in
      // the table of contents, which shows its translation as it is.
      if (!/^#{2,6}\s/.test(line)) continue;
      const page = m[1].replace(/\.md$/, ".html");
      let id = null;
      const html = htmlDir && path.join(htmlDir, page);
      if (html && fs.existsSync(html)) {
        const ids = new Set([...fs.readFileSync(html, "utf8").matchAll(/<h[1-6] id="([^"]+)"/g)].map((x) => x[1]));
        id = slug(e.msgid);
        if (!ids.has(id)) id = `? (no heading id ${id} on ${page})`;
      }
      if (!headings.has(e.msgid)) headings.set(e.msgid, []);
      headings.get(e.msgid).push({ page, id });
    }
  }
  return headings;
}

// mdBook's id for a heading's text: its plain text, lower-cased, letters,
// digits, `_` and `-` kept, spaces made `-`, everything else dropped.
export function slug(markdown) {
  let plain = markdown
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replaceAll("**", "")
    .replaceAll("\\", "")
    .replace(/(^|[^A-Za-z0-9])_([^_]+)_(?![A-Za-z0-9])/g, "$1$2")
    .replaceAll("&amp;", "&")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">");
  let out = "";
  for (const c of plain) {
    if (/[\p{L}\p{N}_-]/u.test(c)) out += c.toLowerCase();
    else if (/\s/.test(c)) out += "-";
  }
  return out;
}

// Problems of one catalogue against the template.
export function checkCatalogue(lang, pot, po, headings) {
  const problems = [];
  const byKey = new Map(po.filter((e) => e.msgid !== "").map((e) => [keyOf(e), e]));
  const wanted = new Set();
  let translated = 0;
  let fuzzy = 0;
  let untranslated = 0;
  for (const e of pot) {
    if (e.msgid === "") continue;
    const key = keyOf(e);
    wanted.add(key);
    const t = byKey.get(key);
    const where = e.refs[0] || "?";
    const short = JSON.stringify(e.msgid.length > 60 ? e.msgid.slice(0, 57) + "..." : e.msgid);
    if (!t || !t.msgstr) {
      untranslated += 1;
      problems.push(`${lang}: untranslated ${short} (${where})`);
      continue;
    }
    if (t.fuzzy) {
      fuzzy += 1;
      problems.push(`${lang}: fuzzy ${short} (${where}): check the translation, then remove the fuzzy flag`);
      continue;
    }
    translated += 1;
    let msgstr = t.msgstr;
    const heading = headings.get(e.msgid);
    if (heading) {
      const m = msgstr.match(/\s*\{#([^}\s]+)\}$/);
      if (!m) {
        problems.push(`${lang}: heading ${short} (${where}): its translation must end with the English heading's id, {#${heading[0].id ?? slug(e.msgid)}}`);
      } else {
        const ids = new Set(heading.map((h) => h.id).filter((id) => id !== null));
        if (ids.size > 0 && !ids.has(m[1])) {
          problems.push(`${lang}: heading ${short} (${where}): ends with {#${m[1]}}, but the English heading's id is {#${[...ids][0]}}`);
        }
        msgstr = msgstr.slice(0, m.index);
      }
    }
    if (e.msgctxt === DIAGRAM) {
      const a = skeleton(e.msgid);
      const b = skeleton(msgstr);
      const line = a.findIndex((x, i) => x !== b[i]);
      if (a.length !== b.length || line >= 0) {
        problems.push(`${lang}: the diagram at ${where}: ` + (a.length !== b.length
          ? `${b.length} lines, the English has ${a.length}`
          : `line ${line + 1} keeps ${JSON.stringify(a[line])} in the English, ${JSON.stringify(b[line])} in the translation (ids, keywords and arrows stay)`));
      }
      continue;
    }
    const d = diff(protectedParts(e.msgid, lang), protectedParts(msgstr));
    if (d.english.length || d.translation.length) {
      problems.push(`${lang}: ${short} (${where}): only the English has ${JSON.stringify(d.english)}; only the translation has ${JSON.stringify(d.translation)}`);
    }
  }
  for (const [key, e] of byKey) {
    if (!wanted.has(key)) {
      const short = JSON.stringify(e.msgid.length > 60 ? e.msgid.slice(0, 57) + "..." : e.msgid);
      problems.push(`${lang}: ${short} is no longer in the book: update the catalogue with msgmerge`);
    }
  }
  return { problems, translated, fuzzy, untranslated, total: wanted.size };
}

function strings(value, at = "", out = []) {
  if (typeof value === "string") out.push([at, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => strings(v, `${at}[${i}]`, out));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) strings(v, `${at}.${k}`, out);
  return out;
}

function nonStrings(value) {
  if (typeof value === "string") return null;
  if (Array.isArray(value)) return value.map(nonStrings);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, nonStrings(v)]));
  return value;
}

// Problems of one language's quizzes: english and translated are
// {name: parsed TOML or an Error}.
export function checkQuizzes(lang, english, translated) {
  const problems = [];
  let done = 0;
  for (const [name, en] of Object.entries(english)) {
    const tr = translated[name];
    if (tr === undefined) {
      problems.push(`${lang}: quizzes/${lang}/${name} is missing`);
      continue;
    }
    if (tr instanceof Error) {
      problems.push(`${lang}: quizzes/${lang}/${name} is not valid TOML: ${tr.message}`);
      continue;
    }
    const eq = en.questions || [];
    const tq = tr.questions || [];
    if (eq.length !== tq.length) {
      problems.push(`${lang}: quizzes/${lang}/${name}: ${tq.length} questions, the English has ${eq.length}`);
      continue;
    }
    eq.forEach((a, i) => {
      const b = tq[i];
      const at = `${lang}: quizzes/${lang}/${name}, question ${i + 1}`;
      if (JSON.stringify(nonStrings(a)) !== JSON.stringify(nonStrings(b)) || a.type !== b.type || a.id !== b.id) {
        problems.push(`${at}: its type, id, fields or numbers differ from the English`);
        return;
      }
      const sb = new Map(strings(b));
      for (const [field, text] of strings(a)) {
        if (field === ".type" || field === ".id") continue;
        if (!sb.has(field)) {
          problems.push(`${at}: no ${field}`);
          continue;
        }
        const d = diff(protectedParts(text), protectedParts(sb.get(field)));
        if (d.english.length || d.translation.length) {
          problems.push(`${at} ${field}: only the English has ${JSON.stringify(d.english)}; only the translation has ${JSON.stringify(d.translation)}`);
        }
      }
    });
    done += 1;
  }
  for (const name of Object.keys(translated)) {
    if (!(name in english)) problems.push(`${lang}: quizzes/${lang}/${name} has no English quiz`);
  }
  return { problems, done, total: Object.keys(english).length };
}

// ---------------------------------------------------------------- running it

function readQuizzes(dir) {
  const out = {};
  if (!fs.existsSync(dir)) return out;
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith(".toml")).sort()) {
    try {
      out[name] = parseToml(fs.readFileSync(path.join(dir, name), "utf8"));
    } catch (error) {
      out[name] = error;
    }
  }
  return out;
}

function makeTemplate(book) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "book-pot-"));
  try {
    try {
      // mdBook warns that the preprocessors ordered against `links` find no
      // `links`: the default preprocessors are off on purpose. Its output is
      // shown only if the build fails.
      execFileSync("mdbook", ["build", book, "-d", dir], {
        env: {
          ...process.env,
          MDBOOK_BUILD__USE_DEFAULT_PREPROCESSORS: "false",
          MDBOOK_OUTPUT: JSON.stringify({ xgettext: { "pot-file": "messages.pot" } }),
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      process.stderr.write(String(error.stdout || "") + String(error.stderr || ""));
      throw new Error("mdbook with mdbook-xgettext could not make the template");
    }
    // The diagrams, which mdbook-xgettext skips (HTML), are messages too.
    return fs.readFileSync(path.join(dir, "messages.pot"), "utf8") + "\n" + diagramPot(path.join(book, "src"));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function main(argv) {
  let book = "book";
  let potFile = null;
  const langs = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--book") book = argv[++i];
    else if (argv[i] === "--pot") potFile = argv[++i];
    else if (argv[i] === "--write-pot") {
      const out = argv[++i];
      fs.writeFileSync(out, makeTemplate(book));
      console.log(`wrote the template, ${parsePo(fs.readFileSync(out, "utf8")).length - 1} messages, to ${out}`);
      return 0;
    }
    else if (argv[i].startsWith("--")) {
      console.error(`i18n.mjs: unknown option ${argv[i]}`);
      return 2;
    } else langs.push(argv[i]);
  }
  const poDir = path.join(book, "po");
  if (langs.length === 0) {
    for (const f of fs.readdirSync(poDir).filter((f) => f.endsWith(".po")).sort()) langs.push(f.slice(0, -3));
  }
  const pot = parsePo(potFile ? fs.readFileSync(potFile, "utf8") : makeTemplate(book));
  const headings = headingsOf(pot, path.join(book, "src"), path.join(book, "book", "html"));
  const englishQuizzes = readQuizzes(path.join(book, "quizzes"));
  let failed = false;
  for (const lang of langs) {
    const file = path.join(poDir, `${lang}.po`);
    if (!fs.existsSync(file)) {
      console.error(`i18n.mjs: no catalogue ${file}`);
      return 2;
    }
    const c = checkCatalogue(lang, pot, parsePo(fs.readFileSync(file, "utf8")), headings);
    const q = checkQuizzes(lang, englishQuizzes, readQuizzes(path.join(book, "quizzes", lang)));
    for (const p of [...c.problems, ...q.problems]) console.log(`FAIL  ${p}`);
    const ok = c.problems.length === 0 && q.problems.length === 0;
    failed ||= !ok;
    console.log(
      `${ok ? "ok  " : "FAIL"}  ${lang}: ${c.translated} of ${c.total} messages translated, ${c.fuzzy} fuzzy, ` +
        `${c.untranslated} untranslated; ${q.done} of ${q.total} quizzes; ${c.problems.length + q.problems.length} problems`,
    );
  }
  return failed ? 1 : 0;
}

// Each check, given a deliberate defect, reports it; a faithful translation passes.
function selfTest() {
  const pot = parsePo(
    [
      'msgid ""\nmsgstr ""\n"Language: en\\n"',
      '#: src/a.md:1\nmsgid "The process"\nmsgstr ""',
      '#: src/a.md:3\nmsgid "Call `spawn` and see [tasks](b.md#tasks)."\nmsgstr ""',
      '#: src/a.md:5\nmsgid "{{#quiz ../quizzes/a.toml}}"\nmsgstr ""',
      '#: src/a.md:7\nmsgid "It is **fast**."\nmsgstr ""',
      '#: src/a.md:9\nmsgctxt "diagram"\nmsgid ""\n"flowchart LR\\n"\n"    a[\\"Worker\\"] --> b[\\"Queue\\"]\\n"\nmsgstr ""',
    ].join("\n\n"),
  );
  const headings = new Map([["The process", [{ page: "a.html", id: "the-process" }]]]);
  const good = [
    'msgid "The process"\nmsgstr "O processo {#the-process}"',
    'msgid "Call `spawn` and see [tasks](b.md#tasks)."\nmsgstr "Chame `spawn` e veja [tarefas](b.md#tasks)."',
    'msgid "{{#quiz ../quizzes/a.toml}}"\nmsgstr "{{#quiz ../quizzes/pt-BR/a.toml}}"',
    'msgid "It is **fast**."\nmsgstr "É **rápido**."',
    'msgctxt "diagram"\nmsgid ""\n"flowchart LR\\n"\n"    a[\\"Worker\\"] --> b[\\"Queue\\"]\\n"\nmsgstr ""\n"flowchart LR\\n"\n"    a[\\"Worker\\"] --> b[\\"Fila\\"]\\n"',
  ];
  const cases = [
    ["a faithful catalogue", good, 0],
    ["an untranslated message", [good[0], good[1], good[2], good[4]], /untranslated "It is/],
    ["a fuzzy message", [good[0], good[1], good[2], '#, fuzzy\nmsgid "It is **fast**."\nmsgstr "É rápido."', good[4]], /fuzzy "It is/],
    ["a heading without its id", ['msgid "The process"\nmsgstr "O processo"', ...good.slice(1)], /must end with the English heading's id, \{#the-process\}/],
    ["a heading with another id", ['msgid "The process"\nmsgstr "O processo {#o-processo}"', ...good.slice(1)], /but the English heading's id is \{#the-process\}/],
    ["translated inline code", [good[0], 'msgid "Call `spawn` and see [tasks](b.md#tasks)."\nmsgstr "Chame `criar` e veja [tarefas](b.md#tasks)."', good[2], good[3], good[4]], /code `spawn`/],
    ["a changed link target", [good[0], 'msgid "Call `spawn` and see [tasks](b.md#tasks)."\nmsgstr "Chame `spawn` e veja [tarefas](b.md#tarefas)."', good[2], good[3], good[4]], /link b\.md#tasks/],
    ["the English quiz file", [good[0], good[1], 'msgid "{{#quiz ../quizzes/a.toml}}"\nmsgstr "{{#quiz ../quizzes/a.toml}}"', good[3], good[4]], /directive/],
    ["lost bold", [...good.slice(0, 3), 'msgid "It is **fast**."\nmsgstr "É rápido."', good[4]], /bold x2/],
    ["a message the book no longer has", [...good, 'msgid "Gone"\nmsgstr "Foi"'], /no longer in the book/],
    ["a diagram with a changed arrow", [...good.slice(0, 4), good[4].replace(/msgstr[\s\S]*$/, (t) => t.replace("-->", "-.->"))], /the diagram at src\/a\.md:9: line 2/],
    ["a diagram that lost a line", [...good.slice(0, 4), 'msgctxt "diagram"\nmsgid ""\n"flowchart LR\\n"\n"    a[\\"Worker\\"] --> b[\\"Queue\\"]\\n"\nmsgstr "flowchart LR a --> b"'], /1 lines, the English has 3/],
  ];
  let failures = 0;
  for (const [name, entries, expect] of cases) {
    const { problems } = checkCatalogue("pt-BR", pot, parsePo(entries.join("\n\n")), headings);
    const ok = expect === 0 ? problems.length === 0 : problems.length === 1 && expect.test(problems[0]);
    if (!ok) failures += 1;
    console.log(`${ok ? "ok  " : "FAIL"}  ${name}: ${problems.length ? problems.join("; ") : "no problem"}`);
  }
  const en = { "a.toml": { questions: [{ type: "MultipleChoice", id: "x", prompt: { prompt: "Is `poll` lazy?", distractors: ["no"] }, answer: { answer: "yes" } }] } };
  const trGood = { "a.toml": { questions: [{ type: "MultipleChoice", id: "x", prompt: { prompt: "`poll` é preguiçoso?", distractors: ["não"] }, answer: { answer: "sim" } }] } };
  const quizCases = [
    ["a faithful quiz", trGood, 0],
    ["a missing quiz", {}, /is missing/],
    ["a lost distractor", { "a.toml": { questions: [{ ...trGood["a.toml"].questions[0], prompt: { prompt: "`poll` é preguiçoso?", distractors: [] } }] } }, /differ from the English/],
    ["translated code in a quiz", { "a.toml": { questions: [{ ...trGood["a.toml"].questions[0], prompt: { prompt: "`consultar` é preguiçoso?", distractors: ["não"] } }] } }, /code `poll`/],
  ];
  for (const [name, tr, expect] of quizCases) {
    const { problems } = checkQuizzes("pt-BR", en, tr);
    const ok = expect === 0 ? problems.length === 0 : problems.length === 1 && expect.test(problems[0]);
    if (!ok) failures += 1;
    console.log(`${ok ? "ok  " : "FAIL"}  ${name}: ${problems.length ? problems.join("; ") : "no problem"}`);
  }
  const slugs = [["`block_on` and the current runtime", "block_on-and-the-current-runtime"], ["Tokio's names: the extension traits", "tokios-names-the-extension-traits"]];
  for (const [text, want] of slugs) {
    const ok = slug(text) === want;
    if (!ok) failures += 1;
    console.log(`${ok ? "ok  " : "FAIL"}  slug of ${JSON.stringify(text)}: ${slug(text)}`);
  }
  console.log(failures ? `i18n self-test: ${failures} check(s) wrong` : "i18n self-test: every defect reported, the faithful cases pass");
  return failures ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exit(process.argv.includes("--self-test") ? selfTest() : main(process.argv.slice(2)));
}
