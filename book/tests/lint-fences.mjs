// No long listing is written inline in the book's Markdown, and every
// included listing names the file it comes from.
//
// The book's rule (see "How listings work" in how-to-use.md): a listing longer
// than a few lines is taken from a chapter's source with {{#include}}, so that
// the code the reader sees is the code that is compiled, linted and tested.
// This checker enforces it strictly: any fenced block in the given Markdown
// files with more than 8 lines between its fences fails, except
//
//   (a) none: a ```mermaid fence always fails, since mdBook's search would
//       index the diagram's source; a diagram is written as
//       <script type="text/x-mermaid"> (see book/mermaid-init.js);
//   (b) a block whose body is only {{#include ...}} (or {{#rustdoc_include}})
//       lines: the listing comes from source;
//   (c) a block fenced `rust,ignore` whose 3 preceding lines state why it is
//       not compiled, with one of the words of REASON below ("a sketch", "an
//       excerpt", "does not compile", ...).
//
// Blank lines inside a block count: the reader sees them too. Fences follow
// CommonMark: ``` or ~~~, three or more, closed by the same character at
// least as many times; indented fences (inside list items) count as well.
//
// It also checks that every included listing says where it comes from. A
// fenced block whose body {{#include}}s a file must have, directly above its
// opening fence and followed by one blank line, a caption naming that file
// by its path from the repository's root (--root, default the current
// directory), in exactly this form:
//
//     <p class="listing-caption"><code>chapters/01-threads/src/memory.rs</code></p>
//
//     ```rust,noplayground
//     {{#include ../../chapters/01-threads/src/memory.rs:park}}
//     ```
//
// The caption must name a file that exists, and the file the block includes
// (so a listing includes from one file only). A caption that stands above
// anything else fails too. (The blank line matters: without it CommonMark
// reads the fence as part of the caption's HTML block.)
//
// Each offender is reported as FILE:LINE with what is wrong. The last two
// lines are "fences: N passed, M failed" and "captions: N passed, M failed"
// (one per Markdown file). With --report FILE the offenders are also written
// as JSON, each with its check, "fences" or "captions".
//
//     node lint-fences.mjs --src book/src [--root .] [--report FILE] [--max-lines 8]

import fs from 'node:fs';
import path from 'node:path';

const REASON = /\b(sketch|excerpt|does not compile|doesn't compile|do not compile|not compiled|simplified|pseudo)/i;
const INCLUDE = /^\s*\{\{#(include|rustdoc_include)\s+[^}]+\}\}\s*$/;
// The included file: the directive's argument up to its first colon (after
// which come an anchor or line numbers).
const INCLUDED_FILE = /^\s*\{\{#(?:include|rustdoc_include)\s+([^:}\s]+)/;
const CAPTION = /^\s*<p class="listing-caption"><code>([^<]*)<\/code><\/p>\s*$/;
const CAPTION_START = /<p\s+class="listing-caption"/;

function parseArgs(argv) {
    const args = { src: null, root: '.', report: null, maxLines: 8 };
    for (let i = 0; i < argv.length; i += 2) {
        const key = argv[i].replace(/^--/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase());
        if (!(key in args)) throw new Error(`unknown option ${argv[i]}`);
        args[key] = argv[i + 1];
    }
    if (!args.src) throw new Error('--src is required');
    args.maxLines = Number(args.maxLines);
    return args;
}

function markdownFiles(dir) {
    const files = [];
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) files.push(...markdownFiles(full));
        else if (entry.name.endsWith('.md')) files.push(full);
    }
    return files.sort();
}

// Every fenced block of one file: its first line (1-based), info string and body.
function fencedBlocks(text) {
    const lines = splitLines(text);
    const blocks = [];
    for (let i = 0; i < lines.length; i++) {
        const open = lines[i].match(/^(\s*)(`{3,}|~{3,})(.*)$/);
        if (!open) continue;
        const [, , fence, info] = open;
        if (fence[0] === '`' && info.includes('`')) continue; // inline code, not a fence
        const close = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
        let end = i + 1;
        while (end < lines.length && !close.test(lines[end])) end++;
        blocks.push({
            line: i + 1,
            info: info.trim(),
            body: lines.slice(i + 1, end),
            before: lines.slice(Math.max(0, i - 3), i),
            closed: end < lines.length,
        });
        i = end;
    }
    return blocks;
}

function splitLines(text) {
    return text.split('\n').map((l) => l.replace(/\r$/, ''));
}

// What is wrong with the captions of one Markdown file: every block that
// includes a file needs a caption naming it, and every caption must stand
// above such a block. Returns [{ line, message }].
function captionProblems(file, text, blocks, root) {
    const lines = splitLines(text);
    const problems = [];
    const rel = (abs) => path.relative(root, abs).split(path.sep).join('/');
    const usedCaptions = new Set();
    for (const block of blocks) {
        const included = [
            ...new Set(
                block.body
                    .filter((l) => INCLUDE.test(l))
                    .map((l) => path.resolve(path.dirname(file), l.match(INCLUDED_FILE)[1])),
            ),
        ];
        if (included.length === 0) continue;
        const want = rel(included[0]);
        const form = `<p class="listing-caption"><code>${want}</code></p>`;
        if (included.length > 1) {
            problems.push({
                line: block.line,
                message: `listing includes ${included.length} files (${included.map(rel).join(', ')}); a listing takes one file, which its caption names`,
            });
        }
        const above = block.line - 2; // 0-based index of the line above the fence
        const blankAbove = above >= 0 && lines[above].trim() === '';
        const captionAt = blankAbove ? above - 1 : above;
        const caption = captionAt >= 0 ? lines[captionAt].match(CAPTION) : null;
        if (!caption) {
            problems.push({ line: block.line, message: `listing of ${want} has no caption: put ${form} and a blank line above its fence` });
            continue;
        }
        usedCaptions.add(captionAt);
        if (!blankAbove) {
            problems.push({ line: captionAt + 1, message: `caption of ${want} must be followed by a blank line, or the fence becomes part of its HTML` });
        }
        const named = caption[1].trim();
        const namedAbs = path.resolve(root, named);
        if (!named || !fs.existsSync(namedAbs) || !fs.statSync(namedAbs).isFile()) {
            problems.push({ line: captionAt + 1, message: `caption names ${named || '(nothing)'}, which does not exist; the listing includes ${want}` });
        } else if (included.length === 1 && namedAbs !== included[0]) {
            problems.push({ line: captionAt + 1, message: `caption names ${named}, but the listing includes ${want}` });
        }
    }
    // Captions that caption nothing: not above a listing that includes a file.
    lines.forEach((l, i) => {
        if (CAPTION_START.test(l) && !usedCaptions.has(i)) {
            problems.push({
                line: i + 1,
                message: CAPTION.test(l)
                    ? 'caption is not directly above a listing that includes a file (caption, blank line, fence)'
                    : 'caption is not in the form <p class="listing-caption"><code>PATH</code></p>, alone on its line',
            });
        }
    });
    return problems.sort((a, b) => a.line - b.line);
}

// Why a block is allowed to be long, or null if it is not.
function exemption(block) {
    const tokens = block.info.split(/[\s,]+/).filter(Boolean);
    const nonBlank = block.body.filter((l) => l.trim() !== '');
    if (nonBlank.length > 0 && nonBlank.every((l) => INCLUDE.test(l))) return 'include';
    if (tokens[0] === 'rust' && tokens.includes('ignore') && REASON.test(block.before.join(' '))) return 'rust,ignore with a reason';
    return null;
}

function main() {
    let args;
    try {
        args = parseArgs(process.argv.slice(2));
    } catch (err) {
        console.error(`lint-fences.mjs: ${err.message}`);
        process.exit(2);
    }
    const root = path.resolve(args.root);
    const offenders = [];
    let passed = 0;
    let failed = 0;
    let captionsPassed = 0;
    let captionsFailed = 0;
    let blocksSeen = 0;
    let captioned = 0;
    for (const file of markdownFiles(args.src)) {
        const rel = path.relative(process.cwd(), file);
        const text = fs.readFileSync(file, 'utf8');
        const blocks = fencedBlocks(text);
        const found = [];
        for (const block of blocks) {
            blocksSeen++;
            if (block.info.split(/[\s,]+/)[0] === 'mermaid') {
                found.push({
                    check: 'fences',
                    file: rel,
                    page: path.basename(file),
                    line: block.line,
                    lines: block.body.length,
                    info: block.info,
                    message: 'a ```mermaid fence: search would index its source; write it as <script type="text/x-mermaid">',
                });
                continue;
            }
            if (block.body.length <= args.maxLines || exemption(block)) continue;
            const why =
                block.info.split(/[\s,]+/)[0] === 'rust' && /\bignore\b/.test(block.info)
                    ? '; rust,ignore but the 3 lines before it give no reason (sketch, excerpt, not compiled, ...)'
                    : '';
            found.push({
                check: 'fences',
                file: rel,
                page: path.basename(file),
                line: block.line,
                lines: block.body.length,
                info: block.info || '(none)',
                message: `${block.body.length}-line \`${block.info || '(no info string)'}\` block written inline${why}`,
            });
        }
        if (found.length) failed++;
        else passed++;
        for (const f of found) console.log(`FAIL ${f.file}:${f.line}: ${f.message}`);
        offenders.push(...found);

        captioned += blocks.filter((b) => b.body.some((l) => INCLUDE.test(l))).length;
        const wrong = captionProblems(file, text, blocks, root).map((p) => ({
            check: 'captions',
            file: rel,
            page: path.basename(file),
            line: p.line,
            message: p.message,
        }));
        if (wrong.length) captionsFailed++;
        else captionsPassed++;
        for (const w of wrong) console.log(`FAIL ${w.file}:${w.line}: ${w.message}`);
        offenders.push(...wrong);
    }
    if (args.report) fs.writeFileSync(args.report, JSON.stringify({ offenders }, null, 2));
    const inline = offenders.filter((o) => o.check === 'fences').length;
    const captionFaults = offenders.length - inline;
    console.log(`${blocksSeen} fenced block(s) read; ${inline} inline block(s) longer than ${args.maxLines} lines`);
    console.log(`${captioned} included listing(s); ${captionFaults} caption problem(s)`);
    console.log(`fences: ${passed} passed, ${failed} failed`);
    console.log(`captions: ${captionsPassed} passed, ${captionsFailed} failed`);
    process.exit(failed || captionsFailed ? 1 : 0);
}

main();
