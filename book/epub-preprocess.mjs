#!/usr/bin/env node
// Makes each chapter's Markdown fit an EPUB, for the epub renderer only
// (book.toml: [preprocessor.epub-xhtml], renderers = ["epub"]); the web book
// never sees it. mdbook-epub 0.5.2 turns the Markdown into XHTML with
// pulldown-cmark and passes raw HTML through as it is, which leaves three
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
//
// HTML comments are dropped: they show nothing, and a `--` inside one is not
// well-formed XML. Fenced code is left as it is.
//
// An mdBook preprocessor: `epub-preprocess.mjs supports RENDERER` exits 0 for
// epub only; otherwise it reads [context, book] as JSON on stdin and writes the
// book on stdout. Node.js 18 or newer, no packages.

import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIAGRAM = /<script type="text\/x-mermaid">\n?([\s\S]*?)<\/script>/g;

const escapeHtml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

// The text of a heading as mdBook renders it, inline markup removed.
function headingText(md) {
    return md
        .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/<[^>]+>/g, '')
        .replace(/`/g, '')
        .replace(/(\*\*|__|\*)/g, '');
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

const diagramNote =
    '<p class="diagram-note"><em>Diagram: drawn in the web book by JavaScript, which an e-reader ' +
    'does not run. Its source, in Mermaid\'s text syntax:</em></p>';

// Rewrites the prose of one chapter; fenced code blocks pass unchanged.
export function transform(content) {
    // Diagrams first: their text spans several lines and holds no fence.
    content = content.replace(DIAGRAM, (_, source) =>
        `${diagramNote}\n\n<pre class="diagram-source">${escapeHtml(source.replace(/\s+$/, ''))}</pre>\n`);

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
    const [, book] = JSON.parse(readFileSync(0, 'utf8'));
    eachChapter(book.items, (chapter) => {
        chapter.content = transform(chapter.content);
    });
    process.stdout.write(JSON.stringify(book));
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) main();
