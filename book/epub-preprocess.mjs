#!/usr/bin/env node
// Makes each chapter's Markdown fit an EPUB, for the epub renderer only
// (book.toml: [preprocessor.epub-xhtml], renderers = ["epub"]); the web book
// never sees it. mdbook-epub 0.5.2 turns the Markdown into XHTML with
// pulldown-cmark and passes raw HTML through as it is, which leaves four
// things broken in an e-reader:
//
// - Diagrams. A diagram is a <script type="text/x-mermaid"> block that
//   mermaid-init.js draws in the browser. An e-reader runs no script and shows
//   nothing there; worse, the diagram's text (`A & B`, `a<br/>b`) is not
//   well-formed XML, and a strict e-reader refuses the whole chapter. Each
//   diagram becomes a sentence that says it is drawn in the web book, and its
//   Mermaid source as a plain listing: the source names every box and arrow,
//   so the reader still has the picture's content.
// - Links between pages. mdBook's HTML renderer rewrites `page.md` to
//   `page.html`; mdbook-epub does not, so each such link pointed at a file that
//   is not in the EPUB. They are rewritten here.
// - Links to a section. mdBook gives every heading an id made from its text;
//   pulldown-cmark as mdbook-epub calls it gives none. Each heading gets an
//   <a id> anchor with the id mdBook would give it (mdbook-html's
//   id_from_content and unique_id), so `page.md#section` lands.
// - Quizzes. `{{#quiz ../quizzes/PAGE.toml}}` is drawn by mdbook-quiz's
//   script in the web book; an e-reader would show the bare line, or an empty
//   box and a script it cannot load. Each becomes the questions as text, their
//   choices in a fixed order, and the answers with their explanations after
//   the last question. (When mdbook-quiz has run first, its placeholder's
//   questions are used and its script and style links are dropped.)
//
// HTML comments are dropped: they show nothing, and a `--` inside one is not
// well-formed XML. Fenced code is left as it is.
//
// An mdBook preprocessor: `epub-preprocess.mjs supports RENDERER` exits 0 for
// epub only; otherwise it reads [context, book] as JSON on stdin and writes the
// book on stdout. Node.js 18 or newer, no packages.

import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const DIAGRAM = /<script type="text\/x-mermaid">\n?([\s\S]*?)<\/script>/g;

const escapeHtml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

// The text of a heading as mdBook renders it, inline markup removed (the
// text of a code span is kept as it is, `<pid>` included).
function headingText(md) {
    return md.split(/(`+)([^`]*?)\1/).map((part, i) => {
        if (i % 3 === 2) return part;
        if (i % 3 === 1) return '';
        return part
            .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
            .replace(/<[^>]+>/g, '')
            .replace(/(\*\*|__|\*)/g, '');
    }).join('');
}

// mdbook-html's id_from_content.
export function idFromContent(text) {
    let id = '';
    for (const ch of text.trim().toLowerCase()) {
        if (/[\p{L}\p{N}_-]/u.test(ch)) id += ch;
        else if (/\s/u.test(ch)) id += '-';
    }
    return id;
}

// mdbook-html's unique_id.
function uniqueId(id, used) {
    if (!used.has(id)) {
        used.add(id);
        return id;
    }
    for (let n = 1; ; n++) {
        const candidate = `${id}-${n}`;
        if (!used.has(candidate)) {
            used.add(candidate);
            return candidate;
        }
    }
}

// ------------------------------------------------------------------ quizzes

// The part of TOML the quiz files use: [[questions]] tables of dotted keys
// whose values are strings (basic, literal, multi-line), arrays of strings,
// booleans and numbers.
export function parseQuizToml(text) {
    const questions = [];
    let table = null;
    let i = 0;
    const fail = (what) => { throw new Error(`${what} at offset ${i}`); };
    const skipSpace = (newlines) => {
        const m = text.slice(i).match(newlines ? /^(\s|#[^\n]*)+/ : /^[ \t]+/);
        if (m) i += m[0].length;
    };
    const basicEscape = (s) => s.replace(/\\\r?\n\s*/g, '').replace(/\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (_, e) =>
        e.length > 1 ? String.fromCodePoint(parseInt(e.slice(1), 16))
            : ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '"': '"', '\\': '\\' })[e] ?? fail(`bad escape \\${e}`));
    const value = () => {
        for (const [open, literal] of [['"""', false], ["'''", true]]) {
            if (text.startsWith(open, i)) {
                let end = text.indexOf(open, i + 3);
                if (end < 0) fail('unclosed multi-line string');
                while (text[end + 3] === open[0]) end++; // quotes just before the closing three
                const body = text.slice(i + 3, end).replace(/^\r?\n/, '');
                i = end + 3;
                return literal ? body : basicEscape(body);
            }
        }
        if (text[i] === '"') {
            const m = text.slice(i).match(/^"((?:[^"\\\n]|\\.)*)"/);
            if (!m) fail('bad string');
            i += m[0].length;
            return basicEscape(m[1]);
        }
        if (text[i] === "'") {
            const m = text.slice(i).match(/^'([^'\n]*)'/);
            if (!m) fail('bad literal string');
            i += m[0].length;
            return m[1];
        }
        if (text[i] === '[') {
            i++;
            const items = [];
            for (;;) {
                skipSpace(true);
                if (text[i] === ']') { i++; return items; }
                items.push(value());
                skipSpace(true);
                if (text[i] === ',') i++;
                else if (text[i] !== ']') fail('bad array');
            }
        }
        const m = text.slice(i).match(/^(true|false|[+-]?[0-9][0-9_.eE+-]*)/);
        if (!m) fail('unsupported value');
        i += m[0].length;
        return m[1] === 'true' ? true : m[1] === 'false' ? false : Number(m[1].replace(/_/g, ''));
    };
    for (;;) {
        skipSpace(true);
        if (i >= text.length) break;
        if (text.startsWith('[[questions]]', i)) {
            i += '[[questions]]'.length;
            table = {};
            questions.push(table);
            continue;
        }
        const key = text.slice(i).match(/^([A-Za-z0-9_-]+(?:\s*\.\s*[A-Za-z0-9_-]+)*)\s*=\s*/);
        if (!key || !table) fail('expected [[questions]] or a key');
        i += key[0].length;
        const path = key[1].split('.').map((k) => k.trim());
        let into = table;
        for (const k of path.slice(0, -1)) into = into[k] ??= {};
        into[path[path.length - 1]] = value();
        skipSpace(false);
        if (text[i] === '#') skipSpace(true);
        else if (i < text.length && text[i] !== '\n' && text[i] !== '\r') fail('text after a value');
    }
    return questions;
}

const indent = (text, pad) => String(text).trim().split('\n').map((l, n) => (n && l.trim() ? pad + l : l)).join('\n');
const asList = (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

// A quiz as Markdown: the questions, then the answers.
export function quizMarkdown(questions) {
    const out = ['**Quiz.** The web book asks these one at a time and checks your answers; here the',
        'answers follow the last question.', ''];
    questions.forEach((q, n) => {
        out.push(`${n + 1}. ${indent(q.prompt?.prompt ?? '', '   ')}`, '');
        if (q.type === 'MultipleChoice') {
            const choices = [...asList(q.answer?.answer), ...asList(q.prompt?.distractors)]
                .sort((a, b) => String(a).localeCompare(String(b)));
            for (const choice of choices) out.push(`   - ${indent(choice, '     ')}`);
            out.push('');
        } else {
            out.push('   *(Answer in a few words.)*', '');
        }
    });
    out.push('**Answers.**', '');
    questions.forEach((q, n) => {
        const answers = asList(q.answer?.answer).map((a) => indent(a, '   ')).join('; ');
        out.push(`${n + 1}. *${answers}* ${indent(q.context ?? '', '   ')}`, '');
    });
    return out.join('\n');
}

const quizUnavailable = '**Quiz.** This page ends with a quiz in the web book, which an e-reader cannot show.\n';

// `{{#quiz PATH}}` lines (PATH relative to the chapter's folder in src) and
// mdbook-quiz's placeholders, as text.
function expandQuizzes(content, chapterDir) {
    content = content.replace(/^\{\{#quiz\s+([^}\s]+)\s*\}\}\s*$/gm, (_, path) => {
        try {
            return quizMarkdown(parseQuizToml(readFileSync(join(chapterDir, path), 'utf8')));
        } catch (e) {
            process.stderr.write(`warning: epub-preprocess: cannot read quiz ${path} (${e.message}); the EPUB shows a note instead\n`);
            return quizUnavailable;
        }
    });
    content = content.replace(/<div class="quiz-placeholder"[^>]*\bdata-quiz-questions="([^"]*)"[^>]*><\/div>/g, (_, json) => {
        try {
            const decoded = json.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<')
                .replace(/&gt;/g, '>').replace(/&amp;/g, '&');
            return `\n${quizMarkdown(JSON.parse(decoded).questions)}\n`;
        } catch {
            return quizUnavailable;
        }
    });
    // The script and style mdbook-quiz links after a page's quiz.
    return content.replace(/<script type="text\/javascript" src="[^"]*quiz\/[^"]*"><\/script>/g, '')
        .replace(/<link rel="stylesheet" type="text\/css" href="[^"]*quiz\/[^"]*">/g, '');
}

const diagramNote =
    '<p class="diagram-note"><em>Diagram: drawn in the web book by JavaScript, which an e-reader ' +
    'does not run. Its source, in Mermaid\'s text syntax:</em></p>';

// Rewrites the prose of one chapter; fenced code blocks pass unchanged.
export function transform(content, chapterDir = '.') {
    content = expandQuizzes(content, chapterDir);
    // Diagrams first: their text spans several lines and holds no fence.
    content = content.replace(DIAGRAM, (_, source) =>
        `${diagramNote}\n\n<pre class="diagram-source"><code>${escapeHtml(source.replace(/\s+$/, ''))}</code></pre>\n`);

    const used = new Set();
    const out = [];
    let fence = null; // the fence that opened the current code block
    let inComment = false;
    for (let line of content.split('\n')) {
        if (fence) {
            const closer = line.match(/^\s{0,3}(`{3,}|~{3,})\s*$/);
            if (closer && closer[1][0] === fence[0] && closer[1].length >= fence.length) fence = null;
            out.push(line);
            continue;
        }
        const opener = line.match(/^\s{0,3}(`{3,}|~{3,})/);
        if (opener) {
            fence = opener[1];
            out.push(line);
            continue;
        }
        // HTML comments, possibly over several lines.
        if (inComment) {
            const end = line.indexOf('-->');
            if (end < 0) continue;
            line = line.slice(end + 3);
            inComment = false;
        }
        line = line.replace(/<!--[\s\S]*?-->/g, '');
        const start = line.indexOf('<!--');
        if (start >= 0) {
            line = line.slice(0, start);
            inComment = true;
        }
        // Links to another page of the book, outside inline code.
        line = line.split(/(`+[^`]*`+)/).map((part, i) =>
            i % 2 === 1 ? part : part.replace(/\]\(([^)\s:#]+)\.md(#[^)\s]*)?\)/g, ']($1.html$2)')).join('');
        // Headings: an anchor with mdBook's id.
        const heading = line.match(/^(#{1,6})\s+(.*?)\s*#*\s*$/);
        if (heading) {
            const id = uniqueId(idFromContent(headingText(heading[2])), used);
            line = `${heading[1]} <a id="${id}"></a>${heading[2]}`;
        }
        out.push(line);
    }
    return out.join('\n');
}

function eachChapter(items, f) {
    for (const item of items) {
        if (item && item.Chapter) {
            f(item.Chapter);
            eachChapter(item.Chapter.sub_items || [], f);
        }
    }
}

function main() {
    const args = process.argv.slice(2);
    if (args[0] === 'supports') {
        process.exit(args[1] === 'epub' ? 0 : 1);
    }
    const [context, book] = JSON.parse(readFileSync(0, 'utf8'));
    const src = join(context.root, context.config.book.src ?? 'src');
    eachChapter(book.items, (chapter) => {
        const dir = chapter.path ? dirname(join(src, chapter.path)) : src;
        chapter.content = transform(chapter.content, dir);
    });
    process.stdout.write(JSON.stringify(book));
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) main();
