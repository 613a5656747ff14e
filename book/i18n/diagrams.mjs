#!/usr/bin/env node
// The diagrams' labels in the reader's language. A diagram is a Mermaid
// source in a <script type="text/x-mermaid"> block (mermaid-init.js draws
// it), which mdbook-xgettext skips as HTML; so each diagram is one message of
// the catalogue of its own, with the context "diagram": the whole source as
// msgid, the same source with its labels translated as msgstr (node ids,
// arrows and layout stay as they are; tests/i18n.mjs checks that the lines
// and arrows match).
//
//     node book/i18n/diagrams.mjs pot      the diagram messages, as PO text
//
// As an mdBook preprocessor (book.toml, [preprocessor.diagrams]) it swaps
// each diagram for its translation from po/LANG.po when the book's language
// has a catalogue, and changes nothing otherwise.
import { readFileSync, readdirSync, existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsePo, quotePo } from './po.mjs';

export const CONTEXT = 'diagram';
const DIAGRAM = /(<script type="text\/x-mermaid">\n)([\s\S]*?)(<\/script>)/g;

// The diagrams of one page's Markdown: [{source, line}].
export function diagramsOf(markdown) {
    const found = [];
    for (const m of markdown.matchAll(DIAGRAM)) {
        const line = markdown.slice(0, m.index).split('\n').length + 1;
        found.push({ source: m[2], line });
    }
    return found;
}

// Every diagram of the book's pages, as PO entries: {msgctxt, msgid, refs}.
export function diagramMessages(srcDir) {
    const byText = new Map();
    for (const file of readdirSync(srcDir).filter((f) => f.endsWith('.md')).sort()) {
        for (const { source, line } of diagramsOf(readFileSync(join(srcDir, file), 'utf8'))) {
            if (!byText.has(source)) byText.set(source, { msgctxt: CONTEXT, msgid: source, refs: [] });
            byText.get(source).refs.push(`src/${file}:${line}`);
        }
    }
    return [...byText.values()];
}

export function potText(srcDir) {
    return diagramMessages(srcDir)
        .map((e) => `#: ${e.refs.join(' ')}\nmsgctxt "${CONTEXT}"\nmsgid ${quotePo(e.msgid)}\nmsgstr ""\n`)
        .join('\n');
}

// What must stay the same in a translated diagram: its number of lines, and
// on each line the arrows and the words before the first label (node ids,
// keywords such as `participant`, `subgraph`, `Note over A,B`).
export function skeleton(source) {
    return source.split('\n').map((line) => {
        // A block's keyword stays; the text after it is a label.
        const block = line.trim().match(/^(alt|else|opt|loop|par|and|critical|option|break|rect)\b/);
        if (block) return block[1];
        // An edge's text between its halves (`a -- yes --> b`, `a -. maps .-> b`) is a label.
        line = line.replace(/(^|\s)(--|-\.|==)\s[^|]*?\s(-->|\.->|==>|---)(\s|$)/g, '$1$2 $3$4');
        const arrows = (line.match(/<?[-=.]+[>x)o]+|<?-{2,}|={2,}|\|/g) || []).join(' ');
        const head = line.trim().split(/["\[({:|]/)[0].replace(/\s+as\s+.*$/, '').trim();
        return `${head} ${arrows}`;
    });
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
    if (args[0] === 'supports') process.exit(0);
    if (args[0] === 'pot') {
        process.stdout.write(potText(join(fileURLToPath(new URL('..', import.meta.url)), 'src')));
        return;
    }
    const [context, book] = JSON.parse(readFileSync(0, 'utf8'));
    const lang = context.config.book.language;
    const catalogue = join(context.root, 'po', `${lang}.po`);
    if (lang && existsSync(catalogue)) {
        const translations = new Map();
        for (const e of parsePo(readFileSync(catalogue, 'utf8'))) {
            if (e.msgctxt === CONTEXT && e.msgstr && !e.fuzzy) translations.set(e.msgid, e.msgstr);
        }
        eachChapter(book.items, (chapter) => {
            chapter.content = chapter.content.replace(DIAGRAM, (all, open, source, close) =>
                translations.has(source) ? open + translations.get(source) + close : all);
        });
    }
    process.stdout.write(JSON.stringify(book));
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) main();
