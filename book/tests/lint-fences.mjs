// No long listing is written inline in the book's Markdown.
//
// The book's rule (see "How listings work" in how-to-use.md): a listing longer
// than a few lines is taken from a chapter's source with {{#include}}, so that
// the code the reader sees is the code that is compiled, linted and tested.
// This checker enforces it strictly: any fenced block in the given Markdown
// files with more than 8 lines between its fences fails, except
//
//   (a) a mermaid block: a diagram, not code;
//   (b) a block whose body is only {{#include ...}} (or {{#rustdoc_include}})
//       lines: the listing comes from source;
//   (c) a block fenced `rust,ignore` whose 3 preceding lines state why it is
//       not compiled, with one of the words of REASON below ("a sketch", "an
//       excerpt", "does not compile", ...).
//
// Blank lines inside a block count: the reader sees them too. Fences follow
// CommonMark: ``` or ~~~, three or more, closed by the same character at
// least as many times; indented fences (inside list items) count as well.
// Each offender is reported as FILE:LINE with its length and info string.
// The last line is "fences: N passed, M failed" (one per Markdown file).
// With --report FILE the offenders are also written as JSON.
//
//     node lint-fences.mjs --src book/src [--report FILE] [--max-lines 8]

import fs from 'node:fs';
import path from 'node:path';

const REASON = /\b(sketch|excerpt|does not compile|doesn't compile|do not compile|not compiled|simplified|pseudo)/i;
const INCLUDE = /^\s*\{\{#(include|rustdoc_include)\s+[^}]+\}\}\s*$/;

function parseArgs(argv) {
    const args = { src: null, report: null, maxLines: 8 };
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
    const lines = text.split('\n');
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

// Why a block is allowed to be long, or null if it is not.
function exemption(block) {
    const tokens = block.info.split(/[\s,]+/).filter(Boolean);
    if (tokens[0] === 'mermaid') return 'mermaid';
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
    const offenders = [];
    let passed = 0;
    let failed = 0;
    let blocksSeen = 0;
    for (const file of markdownFiles(args.src)) {
        const rel = path.relative(process.cwd(), file);
        const found = [];
        for (const block of fencedBlocks(fs.readFileSync(file, 'utf8'))) {
            blocksSeen++;
            if (block.body.length <= args.maxLines || exemption(block)) continue;
            const why =
                block.info.split(/[\s,]+/)[0] === 'rust' && /\bignore\b/.test(block.info)
                    ? '; rust,ignore but the 3 lines before it give no reason (sketch, excerpt, not compiled, ...)'
                    : '';
            found.push({
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
    }
    if (args.report) fs.writeFileSync(args.report, JSON.stringify({ offenders }, null, 2));
    console.log(`${blocksSeen} fenced block(s) read; ${offenders.length} inline block(s) longer than ${args.maxLines} lines`);
    console.log(`fences: ${passed} passed, ${failed} failed`);
    process.exit(failed ? 1 : 0);
}

main();
