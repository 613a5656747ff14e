#!/usr/bin/env node
// Checks that the EPUB `mdbook build book` writes is one an e-reader opens,
// and that it holds the whole book. Node.js 18 or newer, no packages: the zip
// is read with node:zlib, the XML with the small strict parser below.
//
//     node book/tests/epub.mjs [FILE.epub] [--src book/src]
//     node book/tests/epub.mjs --self-test
//
// FILE defaults to the one .epub in book/book/epub. It checks:
//   - the zip: its first entry is `mimetype`, stored (not compressed), with no
//     extra field, holding exactly `application/epub+zip`;
//   - META-INF/container.xml names a package file (OPF) that is in the zip;
//   - the OPF's manifest: every file it lists is in the zip, every file in
//     the zip is listed, and every spine entry names a manifest item;
//   - every chapter of SUMMARY.md is in the spine (by file: page.md is
//     page.html) and in the table of contents (by title);
//   - every image a chapter's Markdown shows (its own and the Markdown files
//     it includes) is in the zip, and so is every image, stylesheet and link
//     target an XHTML file names, and every #fragment it links to exists;
//   - every XML file (XHTML, OPF, NCX, container) is well-formed XML: one
//     root, tags balanced, attributes quoted and not repeated, only XML's own
//     five entities, no `--` in a comment;
//   - no chapter still holds a diagram's <script> or a quiz's placeholder
//     (an e-reader shows nothing there: book/epub-preprocess.mjs turns each
//     into text), nor an mdBook `{{#...}}` left as text.
// Each problem is printed; the exit status is 1 if there is any.
//
// --self-test builds a small good EPUB and broken copies of it in memory (the
// mimetype compressed or not first, a chapter missing, an image missing, a
// tag unclosed, a bare `&`, a page link to a .md, a diagram's script left, a
// manifest entry with no file, a container naming no OPF) and passes only if
// the good one passes and each broken one fails with its own message.

import { readFileSync, readdirSync, existsSync, mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, dirname, posix } from 'node:path';
import { tmpdir } from 'node:os';
import { inflateRawSync, deflateRawSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

// ------------------------------------------------------------------ zip

export function readZip(buf) {
    const problems = [];
    let eocd = -1;
    for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65557); i--) {
        if (buf.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
    }
    if (eocd < 0) return { entries: [], problems: ['not a zip file: no end of central directory'] };
    const count = buf.readUInt16LE(eocd + 10);
    let p = buf.readUInt32LE(eocd + 16);
    const entries = [];
    for (let n = 0; n < count; n++) {
        if (buf.readUInt32LE(p) !== 0x02014b50) { problems.push('zip central directory is damaged'); break; }
        const method = buf.readUInt16LE(p + 10);
        const compressedSize = buf.readUInt32LE(p + 20);
        const nameLength = buf.readUInt16LE(p + 28);
        const extraLength = buf.readUInt16LE(p + 30);
        const commentLength = buf.readUInt16LE(p + 32);
        const localOffset = buf.readUInt32LE(p + 42);
        const name = buf.toString('utf8', p + 46, p + 46 + nameLength);
        p += 46 + nameLength + extraLength + commentLength;
        if (buf.readUInt32LE(localOffset) !== 0x04034b50) {
            problems.push(`zip entry ${name}: no local header`);
            continue;
        }
        const localExtra = buf.readUInt16LE(localOffset + 28);
        const start = localOffset + 30 + buf.readUInt16LE(localOffset + 26) + localExtra;
        const raw = buf.subarray(start, start + compressedSize);
        let data;
        try {
            data = method === 0 ? raw : method === 8 ? inflateRawSync(raw) : null;
        } catch (e) {
            problems.push(`zip entry ${name}: does not inflate (${e.message})`);
        }
        if (data === null) problems.push(`zip entry ${name}: unknown compression method ${method}`);
        entries.push({ name, method, localOffset, localExtra, data: data || Buffer.alloc(0) });
    }
    entries.sort((a, b) => a.localOffset - b.localOffset);
    return { entries, problems };
}

// CRC-32 for the self-test's zip writer.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
});
function crc32(data) {
    let c = 0xffffffff;
    for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
}

// entries: [{ name, data, store }] in order.
export function writeZip(entries) {
    const locals = [];
    const centrals = [];
    let offset = 0;
    for (const { name, data, store } of entries) {
        const body = Buffer.from(data);
        const packed = store ? body : deflateRawSync(body);
        const nameBuf = Buffer.from(name);
        const local = Buffer.alloc(30);
        local.writeUInt32LE(0x04034b50, 0);
        local.writeUInt16LE(20, 4);
        local.writeUInt16LE(store ? 0 : 8, 8);
        local.writeUInt32LE(crc32(body), 14);
        local.writeUInt32LE(packed.length, 18);
        local.writeUInt32LE(body.length, 22);
        local.writeUInt16LE(nameBuf.length, 26);
        const central = Buffer.alloc(46);
        central.writeUInt32LE(0x02014b50, 0);
        central.writeUInt16LE(20, 4);
        central.writeUInt16LE(20, 6);
        central.writeUInt16LE(store ? 0 : 8, 10);
        central.writeUInt32LE(crc32(body), 16);
        central.writeUInt32LE(packed.length, 20);
        central.writeUInt32LE(body.length, 24);
        central.writeUInt16LE(nameBuf.length, 28);
        central.writeUInt32LE(offset, 42);
        locals.push(local, nameBuf, packed);
        centrals.push(central, nameBuf);
        offset += 30 + nameBuf.length + packed.length;
    }
    const directory = Buffer.concat(centrals);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(entries.length, 8);
    end.writeUInt16LE(entries.length, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(offset, 16);
    return Buffer.concat([...locals, directory, end]);
}

// ------------------------------------------------------------------ XML

const NAME = /^[\p{L}_:][\p{L}\p{N}_:.\-\u00B7]*/u;
const REFERENCE = /^&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/;

// Parses a document strictly. Returns { elements, problems }: every element's
// name, attributes and line, in document order, and each well-formedness error.
export function parseXml(text) {
    const elements = [];
    const problems = [];
    const stack = [];
    let roots = 0;
    let i = 0;
    let line = 1;
    const fail = (what) => problems.push(`line ${line}: ${what}`);
    const advance = (to) => {
        for (let k = i; k < to; k++) if (text.charCodeAt(k) === 10) line++;
        i = to;
    };
    const checkText = (s, where) => {
        for (let k = s.indexOf('&'); k >= 0; k = s.indexOf('&', k + 1)) {
            if (!REFERENCE.test(s.slice(k))) {
                fail(`"${s.slice(k, k + 12).split('\n')[0]}" in ${where}: only &amp; &lt; &gt; &quot; &apos; and numeric references are XML`);
                return;
            }
        }
    };
    if (text.charCodeAt(0) === 0xfeff) i = 1;
    while (i < text.length && problems.length < 5) {
        const lt = text.indexOf('<', i);
        const chunk = lt < 0 ? text.slice(i) : text.slice(i, lt);
        if (chunk.length) {
            if (stack.length === 0 && chunk.trim()) fail('text outside the root element');
            if (chunk.includes(']]>')) fail('"]]>" in text');
            checkText(chunk, 'text');
            advance(i + chunk.length);
        }
        if (lt < 0) break;
        const rest = text.slice(lt, lt + 9);
        if (rest.startsWith('<!--')) {
            const end = text.indexOf('-->', lt + 4);
            if (end < 0) { fail('comment not closed'); break; }
            if (text.slice(lt + 4, end).includes('--') || text[end - 1] === '-') fail('"--" inside a comment');
            advance(end + 3);
        } else if (rest.startsWith('<![CDATA[')) {
            const end = text.indexOf(']]>', lt);
            if (end < 0 || stack.length === 0) { fail('CDATA section not closed or outside the root'); break; }
            advance(end + 3);
        } else if (rest.startsWith('<!DOCTYPE')) {
            if (roots > 0 || stack.length) fail('DOCTYPE after the root element');
            let depth = 0;
            let k = lt;
            for (; k < text.length; k++) {
                if (text[k] === '[') depth++;
                else if (text[k] === ']') depth--;
                else if (text[k] === '>' && depth === 0) break;
            }
            advance(k + 1);
        } else if (rest.startsWith('<?')) {
            const end = text.indexOf('?>', lt);
            if (end < 0) { fail('processing instruction not closed'); break; }
            advance(end + 2);
        } else if (rest.startsWith('</')) {
            const m = text.slice(lt + 2).match(NAME);
            const close = m && text.slice(lt + 2 + m[0].length).match(/^\s*>/);
            if (!close) { fail('malformed end tag'); advance(lt + 2); continue; }
            const open = stack.pop();
            if (open !== m[0]) {
                fail(open ? `</${m[0]}> closes <${open}>` : `</${m[0]}> closes nothing`);
                if (open) stack.push(open);
            }
            advance(lt + 2 + m[0].length + close[0].length);
        } else {
            const m = text.slice(lt + 1).match(NAME);
            if (!m) { fail(`"<" that starts no tag: "${text.slice(lt, lt + 12).split('\n')[0]}"`); advance(lt + 1); continue; }
            if (stack.length === 0) {
                roots++;
                if (roots > 1) fail(`a second root element <${m[0]}>`);
            }
            const element = { name: m[0], attrs: {}, line };
            let k = lt + 1 + m[0].length;
            let selfClosing = false;
            for (;;) {
                const space = text.slice(k).match(/^\s*/)[0];
                k += space.length;
                if (text.startsWith('/>', k)) { selfClosing = true; k += 2; break; }
                if (text[k] === '>') { k += 1; break; }
                const attr = text.slice(k).match(/^([\p{L}_:][\p{L}\p{N}_:.\-]*)\s*=\s*("[^"<]*"|'[^'<]*')/u);
                if (!attr || !space.length) {
                    fail(`malformed attribute or tag <${m[0]} ...: "${text.slice(k, k + 16).split('\n')[0]}"`);
                    const gt = text.indexOf('>', k);
                    k = gt < 0 ? text.length : gt + 1;
                    break;
                }
                if (attr[1] in element.attrs) fail(`attribute ${attr[1]} twice on <${m[0]}>`);
                const value = attr[2].slice(1, -1);
                checkText(value, `attribute ${attr[1]}`);
                element.attrs[attr[1]] = decodeEntities(value);
                k += attr[0].length;
            }
            elements.push(element);
            if (!selfClosing) stack.push(m[0]);
            advance(k);
        }
    }
    if (stack.length && problems.length === 0) fail(`<${stack[stack.length - 1]}> is never closed`);
    if (roots === 0 && problems.length === 0) fail('no root element');
    return { elements, problems };
}

function decodeEntities(s) {
    return s.replace(/&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g, (_, e) =>
        ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e]
        ?? String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)));
}

// The text inside each <a href> of a document, by a plain scan (enough for
// the table of contents, which has no markup inside its links).
function linkTexts(text) {
    return [...text.matchAll(/<a\b[^>]*>([\s\S]*?)<\/a>/g)].map((m) => decodeEntities(m[1].replace(/<[^>]+>/g, '')).trim());
}

// ------------------------------------------------------------------ the book's sources

// SUMMARY.md's chapters: [{ title, file }], drafts (no file) left out.
export function summaryChapters(summary) {
    return [...summary.matchAll(/\[([^\]]+)\]\(([^)\s]+\.md)\)/g)].map((m) => ({ title: m[1], file: m[2] }));
}

// The images a chapter's Markdown shows, with the Markdown files it includes
// (whose text lands in the page, so their image paths are the page's).
function markdownImages(src, file) {
    const refs = [];
    const read = (path, seen) => {
        if (seen.has(path) || !existsSync(join(src, path))) return;
        seen.add(path);
        const text = readFileSync(join(src, path), 'utf8').replace(/^(```|~~~)[\s\S]*?^\1\s*$/gm, '');
        for (const m of text.matchAll(/!\[[^\]]*\]\(([^)\s]+)/g)) refs.push(m[1]);
        for (const m of text.matchAll(/<img\b[^>]*\bsrc="([^"]+)"/g)) refs.push(m[1]);
        for (const m of text.matchAll(/\{\{#include\s+([^\s}:]+\.md)\s*\}\}/g)) {
            read(posix.join(posix.dirname(path), m[1]), seen);
        }
    };
    read(file, new Set());
    return refs.filter((ref) => !/^[a-z]+:/i.test(ref)).map((ref) => posix.join(posix.dirname(file), ref));
}

// ------------------------------------------------------------------ the check

const isXml = (name) => /\.(xhtml|html|opf|ncx|xml|svg)$/.test(name);
const isContent = (name) => /\.(xhtml|html)$/.test(name);

// Returns the list of problems of one EPUB (a Buffer) against a book source
// folder holding SUMMARY.md.
export function checkEpub(buf, src) {
    const problems = [];
    const { entries, problems: zipProblems } = readZip(buf);
    problems.push(...zipProblems);
    if (!entries.length) return problems.length ? problems : ['the zip has no entries'];
    const files = new Map(entries.map((e) => [e.name, e.data]));

    // The mimetype entry.
    const first = entries[0];
    if (first.name !== 'mimetype') problems.push(`the first zip entry is ${first.name}, not mimetype`);
    const mimetype = entries.find((e) => e.name === 'mimetype');
    if (!mimetype) problems.push('no mimetype entry');
    else {
        if (mimetype.method !== 0) problems.push('mimetype is compressed: it must be stored');
        if (mimetype.localExtra !== 0) problems.push('mimetype has an extra field in its local header');
        if (mimetype.data.toString('latin1') !== 'application/epub+zip') {
            problems.push(`mimetype holds "${mimetype.data.toString('latin1')}", not "application/epub+zip"`);
        }
    }

    // Every XML file is well-formed; keep the parsed ones.
    const parsed = new Map();
    for (const [name, data] of files) {
        if (!isXml(name)) continue;
        const result = parseXml(data.toString('utf8'));
        parsed.set(name, result);
        for (const p of result.problems) problems.push(`${name}: not well-formed XML: ${p}`);
    }

    // The container names the OPF.
    const container = parsed.get('META-INF/container.xml');
    if (!container) return [...problems, 'no META-INF/container.xml'];
    const rootfile = container.elements.find((e) => e.name === 'rootfile');
    const opfName = rootfile && rootfile.attrs['full-path'];
    if (!opfName) return [...problems, 'META-INF/container.xml names no rootfile full-path'];
    if (!files.has(opfName)) return [...problems, `META-INF/container.xml names ${opfName}, which is not in the zip`];
    const opf = parsed.get(opfName);
    const base = posix.dirname(opfName) === '.' ? '' : posix.dirname(opfName);
    const resolve = (from, href) => posix.normalize(posix.join(posix.dirname(from), decodeURIComponent(href)));

    // The manifest and the spine.
    const manifest = new Map();
    for (const item of opf.elements.filter((e) => e.name === 'item')) {
        const path = posix.join(base, decodeURIComponent(item.attrs.href || ''));
        manifest.set(item.attrs.id, path);
        if (!files.has(path)) problems.push(`the manifest lists ${path}, which is not in the zip`);
    }
    const listed = new Set(manifest.values());
    for (const name of files.keys()) {
        if (name === 'mimetype' || name.startsWith('META-INF/') || name === opfName || name.endsWith('/')) continue;
        if (!listed.has(name)) problems.push(`${name} is in the zip but not in the manifest`);
    }
    const spine = [];
    for (const ref of opf.elements.filter((e) => e.name === 'itemref')) {
        const path = manifest.get(ref.attrs.idref);
        if (!path) problems.push(`the spine names ${ref.attrs.idref}, which the manifest does not list`);
        else spine.push(path);
    }

    // Every chapter of SUMMARY.md is in the spine and the table of contents.
    const summaryPath = join(src, 'SUMMARY.md');
    const chapters = summaryChapters(readFileSync(summaryPath, 'utf8'));
    if (!chapters.length) problems.push(`${summaryPath} lists no chapter`);
    const navName = [...manifest.values()].find((p) => /nav\.xhtml$/.test(p)) || [...manifest.values()].find((p) => p.endsWith('.ncx'));
    const tocTitles = navName && files.has(navName) ? linkTexts(files.get(navName).toString('utf8')) : [];
    const spineSet = new Set(spine);
    for (const { title, file } of chapters) {
        const page = posix.join(base, file.replace(/\.md$/, '.html'));
        if (!spineSet.has(page)) problems.push(`chapter "${title}" (${file}) is not in the spine as ${page}`);
        if (!tocTitles.some((t) => t === title || t.endsWith(` ${title}`))) {
            problems.push(`chapter "${title}" is not in the table of contents`);
        }
        for (const image of markdownImages(src, file)) {
            const path = posix.join(base, image);
            if (!files.has(path)) problems.push(`${file} shows ${image}, which is not in the EPUB as ${path}`);
        }
    }

    // What each content document names is there; no diagram script is left.
    const ids = new Map();
    for (const [name, result] of parsed) {
        ids.set(name, new Set(result.elements.map((e) => e.attrs.id).filter(Boolean)));
    }
    for (const [name, result] of parsed) {
        if (!isContent(name)) continue;
        const text = files.get(name).toString('utf8');
        // Outside code, where the book may name a directive.
        const prose = text.replace(/<pre\b[\s\S]*?<\/pre>|<code\b[\s\S]*?<\/code>/g, '');
        const directive = prose.match(/\{\{#[a-z_]+[^}]*\}\}/);
        if (directive) problems.push(`${name}: ${directive[0]} is left as text: its preprocessor did not run for the EPUB`);
        if (/class="quiz-placeholder"/.test(text)) problems.push(`${name}: a quiz placeholder an e-reader shows nothing for`);
        for (const element of result.elements) {
            if (element.name === 'script' && /mermaid/.test(element.attrs.type || '')) {
                problems.push(`${name} line ${element.line}: a diagram's <script> an e-reader shows nothing for`);
            }
            const target = element.attrs.src ?? element.attrs.href ?? element.attrs['xlink:href'];
            if (target === undefined || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
            const [path, fragment] = target.split('#');
            const file = path ? resolve(name, path) : name;
            if (!files.has(file)) {
                problems.push(`${name} line ${element.line}: <${element.name}> names ${target}, which is not in the EPUB`);
            } else if (fragment && ids.has(file) && !ids.get(file).has(decodeURIComponent(fragment))) {
                problems.push(`${name} line ${element.line}: a link to ${target}, whose #${fragment} is no id there`);
            }
        }
    }
    return problems;
}

// ------------------------------------------------------------------ the self-test

function fixture() {
    const chapter = (title, body) => `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n` +
        `<html xmlns="http://www.w3.org/1999/xhtml"><head><title>${title}</title>` +
        `<link rel="stylesheet" href="stylesheet.css" /></head><body>${body}</body></html>\n`;
    const src = {
        'SUMMARY.md': '# Summary\n\n[Intro](intro.md)\n\n- [First](ch1.md)\n    - [Second](ch2.md)\n',
        'intro.md': '# Intro\n\nSee [the first chapter](ch1.md#start).\n',
        'ch1.md': '# First\n\n![A plot](img/plot.svg)\n\n{{#include notes/n.md}}\n',
        'notes/n.md': '![Another plot](img/other.svg)\n',
        'ch2.md': '# Second\n\n<script type="text/x-mermaid">\nflowchart LR\n  A --> B\n</script>\n',
    };
    const epub = [
        { name: 'mimetype', data: 'application/epub+zip', store: true },
        { name: 'META-INF/container.xml', data: '<?xml version="1.0"?>\n<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>\n' },
        { name: 'OEBPS/content.opf', data: '<?xml version="1.0"?>\n<package version="3.0" xmlns="http://www.idpf.org/2007/opf"><metadata/><manifest>' +
            '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>' +
            '<item id="intro" href="intro.html" media-type="application/xhtml+xml"/>' +
            '<item id="ch1" href="ch1.html" media-type="application/xhtml+xml"/>' +
            '<item id="ch2" href="ch2.html" media-type="application/xhtml+xml"/>' +
            '<item id="css" href="stylesheet.css" media-type="text/css"/>' +
            '<item id="plot" href="img/plot.svg" media-type="image/svg+xml"/>' +
            '<item id="other" href="img/other.svg" media-type="image/svg+xml"/>' +
            '</manifest><spine><itemref idref="intro"/><itemref idref="ch1"/><itemref idref="ch2"/></spine></package>\n' },
        { name: 'OEBPS/nav.xhtml', data: chapter('Contents', '<nav><ol><li><a href="intro.html">Intro</a></li><li><a href="ch1.html">1. First</a></li><li><a href="ch2.html">1.1. Second</a></li></ol></nav>') },
        { name: 'OEBPS/intro.html', data: chapter('Intro', '<h1><a id="intro"></a>Intro</h1><p>See <a href="ch1.html#start">the first chapter</a> &amp; more.</p>') },
        { name: 'OEBPS/ch1.html', data: chapter('First', '<h1><a id="start"></a>First</h1><p><img src="img/plot.svg" alt="A plot" /></p><p><img src="img/other.svg" alt="Another plot" /></p>') },
        { name: 'OEBPS/ch2.html', data: chapter('Second', '<h1>Second</h1><pre class="diagram-source">flowchart LR\n  A --&gt; B</pre>') },
        { name: 'OEBPS/stylesheet.css', data: 'body { margin: 0 }\n' },
        { name: 'OEBPS/img/plot.svg', data: '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n' },
        { name: 'OEBPS/img/other.svg', data: '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n' },
    ];
    return { src, epub };
}

const edit = (entries, name, f) => entries.map((e) => (e.name === name ? { ...e, data: f(String(e.data)) } : e));
const drop = (entries, name) => entries.filter((e) => e.name !== name);

const BROKEN = [
    ['the mimetype compressed', (z) => z.map((e) => (e.name === 'mimetype' ? { ...e, store: false } : e)), 'mimetype is compressed'],
    ['the mimetype not first', (z) => [...z.slice(1, 3), z[0], ...z.slice(3)], 'the first zip entry is META-INF/container.xml'],
    ['the mimetype wrong', (z) => edit(z, 'mimetype', () => 'application/zip'), 'not "application/epub+zip"'],
    ['the container naming a missing OPF', (z) => edit(z, 'META-INF/container.xml', (s) => s.replace('content.opf', 'book.opf')), 'OEBPS/book.opf, which is not in the zip'],
    ['a chapter missing', (z) => edit(drop(z, 'OEBPS/ch2.html'), 'OEBPS/content.opf', (s) => s.replace(/<item id="ch2"[^>]*>/, '').replace('<itemref idref="ch2"/>', '')), 'chapter "Second" (ch2.md) is not in the spine'],
    ['a chapter missing from the contents', (z) => edit(z, 'OEBPS/nav.xhtml', (s) => s.replace('1.1. Second', 'Other')), 'chapter "Second" is not in the table of contents'],
    ['an image missing', (z) => edit(drop(z, 'OEBPS/img/plot.svg'), 'OEBPS/content.opf', (s) => s.replace(/<item id="plot"[^>]*>/, '')), 'ch1.md shows img/plot.svg, which is not in the EPUB'],
    ['an included page\'s image missing', (z) => edit(drop(z, 'OEBPS/img/other.svg'), 'OEBPS/content.opf', (s) => s.replace(/<item id="other"[^>]*>/, '')), 'ch1.md shows img/other.svg'],
    ['a manifest entry with no file', (z) => drop(z, 'OEBPS/stylesheet.css'), 'the manifest lists OEBPS/stylesheet.css, which is not in the zip'],
    ['a file not in the manifest', (z) => [...z, { name: 'OEBPS/stray.html', data: '<p/>' }], 'OEBPS/stray.html is in the zip but not in the manifest'],
    ['a tag left open', (z) => edit(z, 'OEBPS/ch1.html', (s) => s.replace('<p><img', '<p><b><img')), 'OEBPS/ch1.html: not well-formed XML'],
    ['a bare ampersand', (z) => edit(z, 'OEBPS/intro.html', (s) => s.replace('&amp; more', '& more')), 'OEBPS/intro.html: not well-formed XML'],
    ['a named HTML entity', (z) => edit(z, 'OEBPS/intro.html', (s) => s.replace('&amp; more', '&nbsp;more')), 'only &amp; &lt;'],
    ['"--" in a comment', (z) => edit(z, 'OEBPS/intro.html', (s) => s.replace('<h1>', '<!-- run --test --><h1>')), '"--" inside a comment'],
    ['a link to a .md page', (z) => edit(z, 'OEBPS/intro.html', (s) => s.replace('ch1.html#start', 'ch1.md#start')), 'names ch1.md#start, which is not in the EPUB'],
    ['a link to a missing section', (z) => edit(z, 'OEBPS/intro.html', (s) => s.replace('ch1.html#start', 'ch1.html#end')), 'whose #end is no id there'],
    ['a diagram\'s script left', (z) => edit(z, 'OEBPS/ch2.html', (s) => s.replace(/<pre[^>]*>[^<]*<\/pre>/, '<script type="text/x-mermaid">flowchart LR</script>')), 'a diagram\'s <script>'],
    ['a quiz left as a directive', (z) => edit(z, 'OEBPS/ch2.html', (s) => s.replace('<h1>Second</h1>', '<h1>Second</h1><p>{{#quiz ../quizzes/ch2.toml}}</p>')), '{{#quiz ../quizzes/ch2.toml}} is left as text'],
    ['a quiz placeholder left', (z) => edit(z, 'OEBPS/ch2.html', (s) => s.replace('<h1>Second</h1>', '<h1>Second</h1><div class="quiz-placeholder" data-quiz-questions="{}"></div>')), 'a quiz placeholder'],
    ['not a zip', () => null, 'not a zip file'],
];

function selfTest() {
    const { src, epub } = fixture();
    const dir = mkdtempSync(join(tmpdir(), 'epub-self-test-'));
    let failed = 0;
    try {
        for (const [name, text] of Object.entries(src)) {
            mkdirSync(dirname(join(dir, name)), { recursive: true });
            writeFileSync(join(dir, name), text);
        }
        const good = checkEpub(writeZip(epub), dir);
        if (good.length) {
            failed++;
            console.log(`FAIL the good fixture has problems:\n  ${good.join('\n  ')}`);
        } else {
            console.log('ok   the good fixture passes');
        }
        for (const [what, breakIt, expected] of BROKEN) {
            const entries = breakIt(epub);
            const buf = entries ? writeZip(entries) : Buffer.from('plain text, not a zip at all.........');
            const found = checkEpub(buf, dir);
            if (found.some((p) => p.includes(expected))) {
                console.log(`ok   ${what}: ${found.find((p) => p.includes(expected))}`);
            } else {
                failed++;
                console.log(`FAIL ${what}: expected "${expected}", got:\n  ${found.join('\n  ') || '(no problem)'}`);
            }
        }
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
    console.log(failed ? `epub.mjs self-test: ${failed} case(s) wrong` : `epub.mjs self-test: all ${BROKEN.length + 1} cases right`);
    return failed ? 1 : 0;
}

// ------------------------------------------------------------------ main

function main() {
    const args = process.argv.slice(2);
    if (args.includes('--self-test')) process.exit(selfTest());
    const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
    let src = join(root, 'book', 'src');
    let file = null;
    for (let k = 0; k < args.length; k++) {
        if (args[k] === '--src') src = args[++k];
        else if (args[k] === '-h' || args[k] === '--help') {
            console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 30).join('\n'));
            process.exit(0);
        } else file = args[k];
    }
    if (!file) {
        const dir = join(root, 'book', 'book', 'epub');
        const found = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.epub')) : [];
        if (found.length !== 1) {
            console.error(`epub.mjs: expected one .epub in ${dir}, found ${found.length}: build it with \`mdbook build book\` (needs mdbook-epub)`);
            process.exit(2);
        }
        file = join(dir, found[0]);
    }
    const problems = checkEpub(readFileSync(file), src);
    for (const p of problems) console.log(`epub: ${p}`);
    if (problems.length) {
        console.log(`epub.mjs: ${problems.length} problem(s) in ${file}`);
        process.exit(1);
    }
    const { entries } = readZip(readFileSync(file));
    const chapters = summaryChapters(readFileSync(join(src, 'SUMMARY.md'), 'utf8')).length;
    const images = entries.filter((e) => /\.(svg|png|jpe?g|gif|webp)$/.test(e.name)).length;
    console.log(`epub.mjs: ${file} is a well-formed EPUB: ${entries.length} files, all ${chapters} chapters of SUMMARY.md, ${images} images`);
}

main();
