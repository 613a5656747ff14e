// The book as a reader sees it: the built mdBook, checked in headless Chromium.
//
// `mdbook build` and linkcheck2 prove that the Markdown turned into HTML and
// that every link points somewhere. They cannot see what happens in a
// browser: a mermaid diagram that fails to parse, a plot that does not load,
// a listing that came out empty, a script error, a search that sends the
// reader to the wrong chapter. This script opens every page listed in
// SUMMARY.md, as a reader would, and checks:
//
//   http       the page answers 200;
//   console    no JavaScript error (console.error, an uncaught exception or
//              a resource that failed to load) while the page is open;
//              warnings are fine. Requests that leave the served book (the
//              Rust playground, a CDN) are blocked and count as failed, so
//              the result does not depend on having a network;
//   mermaid    every mermaid block became an SVG diagram: none left as raw
//              `graph TD` text, none drawn as mermaid's "Syntax error"
//              picture, and as many diagrams as the page's Markdown has
//              mermaid fences;
//   images     every <img> loaded (naturalWidth > 0) and every SVG file the
//              page references answers 200 with an SVG;
//   listings   no literal `{{#include` or `ANCHOR` text outside the places
//              allowed in the expectations file, no empty <pre><code> block,
//              and a copy-to-clipboard button on every code block;
//   captions   every listing caption (<p class="listing-caption">, which
//              names the file a listing includes) sits directly above a code
//              block, close to it, in the caption style of
//              book/listing-caption.css (monospace, smaller than the text).
//              That each included listing has a caption naming the right
//              file is checked on the Markdown, by lint-fences.mjs;
//   clipboard  a real mouse click on each copy button puts exactly that
//              block's text in the clipboard (read back with
//              navigator.clipboard.readText; the browser context is granted
//              clipboard permissions, and headless Chromium has a working
//              clipboard of its own, so no stub is needed);
//   quiz       on every page with a quiz (mdbook-quiz's widget), a reader's
//              run through it: Start, the first question answered right,
//              the second wrong, the rest right; the review must then score
//              it so (N-1 of N, the first marked correct, the second
//              incorrect), and "see the correct answers" must show every
//              question's context. A page that must have a quiz and shows
//              none, or shows the raw `{{#quiz` directive, fails;
//   quiz-file  on the Markdown and the quiz files (no browser): every page
//              the expectations file names has a `## Quiz` section, last or
//              just before the last section, holding `{{#quiz
//              ../quizzes/PAGE.toml}}`; the quiz has 3 to 6 questions (the
//              bounds are the expectations file's), each a MultipleChoice or
//              ShortAnswer whose context links to a section
//              (`page.html#anchor`: mdbook-quiz renders quiz text in the
//              browser, so a `.md` link would stay broken). That each such
//              link lands on an anchor is anchors.mjs's check;
//   screenshot the first screen of each page is saved as a PNG;
//   search     each query of the expectations file, typed into the search
//              box (opened with the `s` key), lists results, and its first
//              hit opens an expected page.
//
// It prints one line per check and page, then a summary, and ends with
// "browser: N passed, M failed". With --report FILE it also writes every
// result as JSON (the self-test compares that with the fixture's defects).
// Exit code: 0 if all passed, 1 if any failed, 2 on a usage or set-up error.
//
//     node browser.mjs --base http://127.0.0.1:PORT/ --src book/src \
//         --html book/book/html --expect expectations.mjs \
//         [--screenshots DIR] [--report FILE] [--chromium /usr/bin/chromium]
//         [--lang CODE] [--languages en,pt-BR,de]
//
// With --lang, the book under --html is that translation: the search uses
// the expectations' queries for it (`searchIn`), and the Markdown-side quiz
// check, which is the English book's, is skipped. With --languages, the
// language picker of the first chapter page must offer exactly those and open the
// same page and section in each.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { parse as parseToml } from 'smol-toml';

// ---------------------------------------------------------------- arguments

function parseArgs(argv) {
    const args = {
        chromium: '/usr/bin/chromium',
        screenshots: null,
        report: null,
        timeLimit: 420, // seconds for the whole script; `run` has its own limit too
        lang: null, // a translation's code: its search queries, and the picker
        languages: null, // every language built, comma-separated: the picker's
    };
    for (let i = 0; i < argv.length; i += 2) {
        const key = argv[i].replace(/^--/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase());
        if (!(key in args) && !['base', 'src', 'html', 'expect'].includes(key)) {
            throw new Error(`unknown option ${argv[i]}`);
        }
        args[key] = argv[i + 1];
    }
    for (const required of ['base', 'src', 'html', 'expect']) {
        if (!args[required]) throw new Error(`--${required} is required`);
    }
    return args;
}

// ---------------------------------------------------------------- the book's pages

// The pages of SUMMARY.md, in order: `[Title](file.md)` becomes file.html.
// Draft chapters, written `[Title]()`, have no page and are skipped.
function summaryPages(srcDir) {
    const summary = fs.readFileSync(path.join(srcDir, 'SUMMARY.md'), 'utf8');
    const pages = [];
    const drafts = [];
    for (const match of summary.matchAll(/\[([^\]]+)\]\(([^)]*)\)/g)) {
        const [, title, target] = match;
        if (target.trim() === '') {
            drafts.push(title);
            continue;
        }
        const md = target.trim().split('#')[0];
        const html = md.replace(/(^|\/)README\.md$/, '$1index.md').replace(/\.md$/, '.html');
        pages.push({ title, md, html });
    }
    return { pages, drafts };
}

// Diagram sources (<script type="text/x-mermaid">) in a page's Markdown: the
// number of diagrams it should show.
function mermaidFences(srcDir, md) {
    const file = path.join(srcDir, md);
    if (!fs.existsSync(file)) return null;
    return (fs.readFileSync(file, 'utf8').match(/^<script type="text\/x-mermaid">\s*$/gm) || []).length;
}

// The visible text of a built page, tags stripped: used to ask which pages
// mention a phrase, for search expectations that depend on the book's state.
function pageText(htmlDir, html) {
    const file = path.join(htmlDir, html);
    if (!fs.existsSync(file)) return '';
    const source = fs.readFileSync(file, 'utf8');
    const main = source.match(/<main>([\s\S]*)<\/main>/);
    return (main ? main[1] : source)
        .replace(/<script[\s\S]*?<\/script>/g, ' ')
        .replace(/<[^>]+>/g, ' ')
        .replace(/&[a-z]+;|&#\d+;/g, ' ');
}

// ---------------------------------------------------------------- results

const results = [];

// One result: a check on one page (or one search query). `summary` says what
// was looked at; `problems` lists what is wrong, one string each, and the
// check passed if there are none.
function record(check, page, summary, problems = []) {
    const ok = problems.length === 0;
    const detail = [summary, ...problems].filter(Boolean).join('; ');
    results.push({ check, page, ok, summary, problems, detail });
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${check.padEnd(10)} ${page}${detail ? `: ${detail}` : ''}`);
}

// ---------------------------------------------------------------- quizzes on disk

// The quiz of a page: the `{{#quiz PATH}}` directive of its Markdown, the
// file it names (relative to the page, as mdbook-quiz reads it), parsed.
function quizOf(srcDir, md) {
    const file = path.join(srcDir, md);
    if (!fs.existsSync(file)) return null;
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const directives = [];
    lines.forEach((line, i) => {
        const m = line.match(/^\{\{#quiz ([^}]+)\}\}\s*$/);
        if (m) directives.push({ line: i + 1, path: m[1].trim() });
    });
    const sections = [];
    lines.forEach((line, i) => {
        if (/^## /.test(line)) sections.push({ line: i + 1, title: line.slice(3).trim() });
    });
    return { file, directives, sections };
}

// Checks the Markdown side of every page's quiz and the quiz file itself;
// `rule` is the expectations file's `quizzes`.
function checkQuizFiles(srcDir, pages, rule) {
    for (const page of pages) {
        const quiz = quizOf(srcDir, page.md);
        if (!quiz) continue; // a page without Markdown is the http check's
        const required = rule.required(page);
        const pending = (rule.pending || []).includes(page.md);
        if (quiz.directives.length === 0) {
            if (required && !pending) {
                record('quiz-file', page.md, '', ['no quiz: a `## Quiz` section with `{{#quiz ../quizzes/' +
                    path.posix.basename(page.md, '.md') + '.toml}}` is missing']);
            } else if (required) {
                record('quiz-file', page.md, 'no quiz yet (listed in quizzes.pending)');
            }
            continue;
        }
        const problems = [];
        const stem = path.posix.basename(page.md, '.md');
        const d = quiz.directives[0];
        if (quiz.directives.length > 1) problems.push(`${quiz.directives.length} quiz directives, expected one`);
        if (d.path !== `../quizzes/${stem}.toml`) problems.push(`line ${d.line}: quiz is ${d.path}, expected ../quizzes/${stem}.toml`);
        // The `## Quiz` section: holds the directive, and is the last section
        // or the one just before the last.
        const at = quiz.sections.findIndex((s) => s.title === 'Quiz');
        const holder = quiz.sections.filter((s) => s.line < d.line).pop();
        if (at < 0) problems.push('no `## Quiz` section');
        else if (!holder || holder.title !== 'Quiz') problems.push(`line ${d.line}: the directive is not in the \`## Quiz\` section`);
        else if (at < quiz.sections.length - 2) {
            problems.push(`\`## Quiz\` is followed by ${quiz.sections.length - 1 - at} sections; it must be last, or just before the last ("${quiz.sections.at(-1).title}")`);
        }
        const tomlFile = path.resolve(path.dirname(quiz.file), d.path);
        let questions = null;
        try {
            questions = parseToml(fs.readFileSync(tomlFile, 'utf8')).questions;
        } catch (err) {
            problems.push(`${d.path}: ${err.code === 'ENOENT' ? 'no such file' : String(err.message).split('\n')[0]}`);
        }
        if (questions !== null) {
            const n = Array.isArray(questions) ? questions.length : 0;
            if (n < rule.min || n > rule.max) problems.push(`${n} question(s), expected ${rule.min} to ${rule.max}`);
            (questions || []).forEach((q, i) => {
                const name = `question ${i + 1}`;
                if (!['MultipleChoice', 'ShortAnswer'].includes(q.type)) problems.push(`${name} is a ${q.type} question; only MultipleChoice and ShortAnswer are used`);
                if (typeof q.context !== 'string' || !q.context.trim()) problems.push(`${name} has no context explaining its answer`);
                else if (!/\]\([\w\-./]*\.html#[^)\s]+\)/.test(q.context)) problems.push(`${name}'s context links to no section (page.html#anchor)`);
                const text = JSON.stringify(q);
                for (const m of text.matchAll(/\]\(([\w\-./]*\.md)(#[^)\s]*)?\)/g)) {
                    problems.push(`${name} links to ${m[1]}${m[2] || ''}: quiz text is rendered by mdbook-quiz, not mdBook, so write ${m[1].replace(/\.md$/, '.html')}${m[2] || ''}`);
                }
            });
        }
        const n = Array.isArray(questions) ? questions.length : 0;
        record('quiz-file', page.md, `${d.path}: ${n} question(s)` + (pending ? '; listed in quizzes.pending, which it can now leave' : ''), problems);
    }
}

// ---------------------------------------------------------------- checks run inside the page

// Counts mermaid blocks and how they rendered. mermaid-init.js turns each
// <script type="text/x-mermaid"> into a <pre class="mermaid"> for mermaid to
// draw; a source it missed stays a script, and a ```mermaid fence (which
// the book does not use: search would index its source) stays a <code
// class="language-mermaid">; both count as unrendered.
function mermaidState() {
    const raw = /^\s*(graph|flowchart|sequenceDiagram|stateDiagram|classDiagram|erDiagram|gantt|pie|journey|gitGraph|mindmap|timeline|quadrantChart|block-beta)\b/;
    const blocks = [...document.querySelectorAll('.mermaid, code.language-mermaid, script[type="text/x-mermaid"]')].filter(
        (el) => el.tagName.toLowerCase() !== 'svg' && !el.parentElement.closest('.mermaid'),
    );
    return blocks.map((el, index) => {
        // Mermaid 11 puts a failed diagram's error picture in a <div> inside
        // the block, so any SVG inside counts, and its role tells which it is.
        const svg = el.querySelector('svg');
        const ownText = [...el.childNodes]
            .filter((n) => n.nodeType === Node.TEXT_NODE)
            .map((n) => n.textContent)
            .join('');
        const isError =
            !!svg &&
            (svg.getAttribute('aria-roledescription') === 'error' || /Syntax error in text/.test(svg.textContent));
        return {
            index,
            processed: el.hasAttribute('data-processed'),
            svg: !!svg && !isError,
            error: isError,
            raw: raw.test(ownText) ? ownText.trim().split('\n')[0].slice(0, 60) : null,
            preprocessed: el.tagName.toLowerCase() === 'pre',
        };
    });
}

// Waits for every <img> to load or fail (at most 10 s), then reports each.
async function imageState() {
    const images = [...document.images];
    await Promise.all(
        images.map((img) =>
            img.complete
                ? null
                : new Promise((resolve) => {
                      img.addEventListener('load', resolve, { once: true });
                      img.addEventListener('error', resolve, { once: true });
                      setTimeout(resolve, 10000);
                  }),
        ),
    );
    const svgRefs = new Set();
    for (const el of document.querySelectorAll('img[src], a[href], object[data], embed[src]')) {
        const ref = el.getAttribute('src') || el.getAttribute('href') || el.getAttribute('data');
        const url = new URL(ref, location.href);
        if (url.origin === location.origin && /\.svg$/i.test(url.pathname)) svgRefs.add(url.origin + url.pathname);
    }
    return {
        images: images.map((img) => ({
            src: img.getAttribute('src'),
            ok: img.complete && img.naturalWidth > 0,
            width: img.naturalWidth,
        })),
        svgRefs: [...svgRefs],
    };
}

// Looks for directives and anchor comments that reached the reader, empty
// listings and code blocks without a copy button. `allowed` lists the
// sections (ids of the h1/h2 that opens them) where such text is meant.
function listingState(allowedSections) {
    const main = document.querySelector('main') || document.body;
    const leaks = [];
    let section = '';
    const walker = document.createTreeWalker(main, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.currentNode; node; node = walker.nextNode()) {
        if (node.nodeType === Node.ELEMENT_NODE) {
            if (/^H[12]$/.test(node.tagName) && node.id) section = node.id;
            continue;
        }
        if (node.parentElement.closest('script, style')) continue;
        const text = node.textContent;
        const found = text.match(/\{\{\s*#\s*(include|rustdoc_include)|\bANCHOR(_END)?\b/);
        if (found && !allowedSections.includes(section)) {
            const line = text.split('\n').find((l) => l.includes(found[0])) || text;
            leaks.push({ section, text: line.trim().slice(0, 80), inListing: !!node.parentElement.closest('pre') });
        }
    }
    const blocks = [...main.querySelectorAll('pre')].filter((pre) => pre.querySelector(':scope > code'));
    return {
        leaks,
        blocks: blocks.length,
        // innerText leaves out what the reader cannot see, such as the hidden
        // `fn main() {` lines mdBook wraps around a Rust playground block.
        empty: blocks
            .map((pre, index) => ({ index, section: nearestSection(pre) }))
            .filter(({ index }) => blocks[index].querySelector(':scope > code').innerText.trim() === ''),
        withoutButton: blocks
            .map((pre, index) => ({ index, section: nearestSection(pre) }))
            .filter(({ index }) => !blocks[index].querySelector('.clip-button')),
    };

    function nearestSection(el) {
        const headings = [...main.querySelectorAll('h1[id], h2[id], h3[id]')].filter(
            (h) => h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING,
        );
        return headings.length ? headings[headings.length - 1].id : '';
    }
}

// Each listing caption: its text, whether a code block follows it at once,
// how far above that block it ends, and whether the caption style applied.
function captionState() {
    const main = document.querySelector('main') || document.body;
    const prose = main.querySelector('p:not(.listing-caption)');
    const proseSize = parseFloat(getComputedStyle(prose || main).fontSize);
    return [...main.querySelectorAll('.listing-caption')].map((caption, index) => {
        const next = caption.nextElementSibling;
        const listing = !!next && next.tagName === 'PRE' && !!next.querySelector(':scope > code');
        const style = getComputedStyle(caption);
        return {
            index,
            text: caption.textContent.trim().slice(0, 80),
            listing,
            gap: listing ? Math.round(next.getBoundingClientRect().top - caption.getBoundingClientRect().bottom) : null,
            monospace: /mono|consolas|menlo|courier|source code/i.test(style.fontFamily),
            smaller: parseFloat(style.fontSize) < proseSize,
        };
    });
}

// A reader's run through each quiz on the page (mdbook-quiz's React widget:
// a <div class="quiz-placeholder"> whose data-quiz-questions holds the quiz,
// drawn as .mdbook-quiz with a Start button, one question at a time, each a
// <form class="response"> sent with its submit input, then an "Answer
// Review"). The first question is answered right, the second wrong, the rest
// right; the review must score exactly that.
async function checkQuiz(tab, page, required) {
    const found = await tab.evaluate(() => ({
        quizzes: [...document.querySelectorAll('main .quiz-placeholder')].map((el, index) => {
            el.setAttribute('data-book-test-quiz', String(index));
            let questions = null;
            try {
                questions = JSON.parse(el.dataset.quizQuestions).questions;
            } catch {}
            return { index, questions, drawn: !!el.querySelector('.mdbook-quiz button.start') };
        }),
        fallback: document.querySelectorAll('main .quiz-fallback').length,
        raw: [...document.querySelectorAll('main p')].some((p) => /\{\{#quiz /.test(p.textContent)),
    }));
    const problems = [];
    if (found.raw) problems.push('the raw {{#quiz ...}} directive is shown');
    if (found.quizzes.length === 0) {
        if (found.fallback) problems.push('shows the note for readers without mdbook-quiz: the book was built without it');
        else if (required) problems.push('no quiz on the page');
        if (required || problems.length) record('quiz', page.html, '', problems);
        return;
    }
    const summaries = [];
    for (const quiz of found.quizzes) {
        const name = found.quizzes.length > 1 ? `quiz ${quiz.index + 1}: ` : '';
        const fail = (why) => problems.push(name + why);
        if (!quiz.questions) {
            fail('its questions do not parse');
            continue;
        }
        if (!quiz.drawn) {
            fail('not drawn (no Start button): did quiz/quiz-embed.iife.js load?');
            continue;
        }
        const root = tab.locator(`[data-book-test-quiz="${quiz.index}"] .mdbook-quiz`);
        const n = quiz.questions.length;
        const wrongAt = n >= 2 ? 1 : -1; // the second question is answered wrong
        let answered = 0;
        try {
            await root.locator('button.start').click();
            for (let i = 0; i < n; i++) {
                const q = quiz.questions[i];
                const right = i !== wrongAt;
                await root.locator('.counter', { hasText: `Question ${i + 1} / ${n}` }).waitFor({ timeout: 5000 });
                if (q.type === 'ShortAnswer') {
                    const accepted = [q.answer.answer, ...(q.answer.alternatives || [])].map((a) => a.toLowerCase().trim());
                    let wrong = 'not-the-answer';
                    while (accepted.includes(wrong)) wrong += '-really';
                    await root.locator('form.response input[name="answer"]').fill(right ? q.answer.answer : wrong);
                } else if (q.type === 'MultipleChoice') {
                    const answers = Array.isArray(q.answer.answer) ? q.answer.answer : [q.answer.answer];
                    const values = await root.locator('form.response .choice input').evaluateAll((els) => els.map((e) => e.value));
                    for (const a of answers) {
                        const times = values.filter((v) => v === a).length;
                        if (times === 0) fail(`question ${i + 1}: the right answer ${JSON.stringify(a.slice(0, 60))} is not among the choices`);
                        if (times > 1) fail(`question ${i + 1}: the right answer ${JSON.stringify(a.slice(0, 60))} is offered ${times} times`);
                    }
                    const picks = right ? answers : [values.find((v) => !answers.includes(v))];
                    if (picks.some((v) => v === undefined || !values.includes(v))) {
                        fail(`question ${i + 1}: no ${right ? 'right' : 'wrong'} choice to pick`);
                        break;
                    }
                    for (const v of picks) {
                        await root.locator('form.response .choice input').nth(values.indexOf(v)).check();
                    }
                } else {
                    fail(`question ${i + 1} is a ${q.type} question, which this check cannot answer`);
                    break;
                }
                await root.locator('form.response input[type="submit"]').click();
                answered++;
            }
            if (answered < n) continue;
            await root.locator('h3', { hasText: 'Answer Review' }).waitFor({ timeout: 5000 });
            const score = (await root.locator('section > p strong').first().textContent()).trim();
            const wantScore = `${wrongAt < 0 ? n : n - 1}/${n}`;
            if (score !== wantScore) fail(`the review scores ${score}, expected ${wantScore} (question ${wrongAt + 1} answered wrong)`);
            // "You answered:" is the first cell of each answer's row.
            const marks = await root.locator('.answer-wrapper').evaluateAll((els) =>
                els.map((el) => {
                    const mine = el.querySelector('.answer-row > div:first-child');
                    return mine?.querySelector('.correct') ? 'correct' : mine?.querySelector('.incorrect') ? 'incorrect' : 'unmarked';
                }),
            );
            marks.forEach((mark, i) => {
                const want = i === wrongAt ? 'incorrect' : 'correct';
                if (mark !== want) fail(`question ${i + 1} answered ${want === 'correct' ? 'right' : 'wrong'} is shown ${mark}`);
            });
            await root.getByRole('button', { name: 'see the correct answers' }).first().click();
            const contexts = await root.locator('.answer-wrapper').evaluateAll((els) =>
                els.map((el) => el.querySelector('.context')?.textContent.replace(/^\s*Context\s*:/, '').trim() || ''),
            );
            contexts.forEach((text, i) => {
                if (!text) fail(`question ${i + 1}: "see the correct answers" shows no context`);
            });
            const mdLinks = await root.locator('a[href]').evaluateAll((els) =>
                els.map((a) => a.getAttribute('href')).filter((h) => /\.md(#|$)/.test(h)),
            );
            for (const h of mdLinks) fail(`a link to ${h}: mdbook-quiz does not rewrite .md links`);
            summaries.push(`${n} question(s) answered, scored ${score}`);
        } catch (err) {
            fail(`stopped after ${answered} of ${n} question(s): ${err.message.split('\n')[0]}`);
        }
    }
    record('quiz', page.html, summaries.join('; '), problems);
}

// ---------------------------------------------------------------- one page

// The book must work from its own files. A request anywhere else (the Rust
// playground, a CDN, a web font) is aborted, so that the result is the same
// with or without a network, and it shows up as a failed request.
async function blockExternal(tab, base, external) {
    const origin = new URL(base).origin;
    await tab.route(
        (url) => url.origin !== origin && !/^(data|blob|about):/.test(url.protocol),
        (route) => {
            external.add(route.request().url());
            return route.abort('blockedbyclient');
        },
    );
}

async function checkPage(context, base, page, opts) {
    const tab = await context.newPage();
    const external = new Set();
    await blockExternal(tab, base, external);
    const errors = [];
    tab.on('console', (msg) => {
        // "Failed to load resource" is left to the response and requestfailed
        // handlers below, which name the URL.
        if (msg.type() === 'error' && !/^Failed to load resource/.test(msg.text())) {
            errors.push(`console.error: ${msg.text().slice(0, 200)}`);
        }
    });
    tab.on('pageerror', (err) => errors.push(`uncaught: ${String(err.message).split('\n')[0].slice(0, 200)}`));
    tab.on('response', (res) => {
        if (res.status() >= 400) errors.push(`HTTP ${res.status()} for ${res.url().replace(base, '')}`);
    });
    tab.on('requestfailed', (req) => {
        const why = external.has(req.url()) ? 'outside the served book, blocked' : req.failure()?.errorText;
        errors.push(`request failed: ${req.url().replace(base, '')} (${why})`);
    });

    try {
        let response;
        try {
            response = await tab.goto(base + page.html, { waitUntil: 'load', timeout: 20000 });
        } catch (err) {
            record('http', page.html, '', [`did not load: ${err.message.split('\n')[0]}`]);
            return;
        }
        const status = response ? response.status() : 0;
        record('http', page.html, '', status === 200 ? [] : [`HTTP ${status}`]);
        if (status !== 200) return;

        // Mermaid renders after `load`, one diagram at a time. Done when every
        // block has its SVG, or when all were processed and nothing changed
        // for 1.5 s (a block that failed never gets one); at most 15 s.
        let state = await tab.evaluate(mermaidState);
        for (let waited = 0, still = 0, last = ''; waited < 15000; waited += 250) {
            if (state.every((b) => b.svg)) break;
            const now = JSON.stringify(state);
            still = now === last ? still + 250 : 0;
            last = now;
            if (state.every((b) => b.processed || !b.preprocessed) && still >= 1500) break;
            await tab.waitForTimeout(250);
            state = await tab.evaluate(mermaidState);
        }

        // The first screen, as the reader first sees it.
        if (opts.screenshots) {
            await tab.evaluate(() => document.fonts.ready);
            const file = path.join(opts.screenshots, page.html.replace(/\//g, '_').replace(/\.html$/, '.png'));
            await tab.screenshot({ path: file, fullPage: false, timeout: 15000 });
            const size = fs.existsSync(file) ? fs.statSync(file).size : 0;
            record('screenshot', page.html, path.relative(process.cwd(), file), size > 0 ? [] : ['no file written']);
        }

        // mermaid
        const expected = mermaidFences(opts.src, page.md);
        const rendered = state.filter((b) => b.svg).length;
        const problems = [];
        for (const b of state) {
            if (!b.preprocessed) problems.push(`block ${b.index + 1} was not drawn (its source is still a code block or a script)`);
            else if (b.error) problems.push(`block ${b.index + 1} drew mermaid's syntax-error picture`);
            else if (!b.svg) problems.push(`block ${b.index + 1} has no SVG`);
            if (b.raw) problems.push(`block ${b.index + 1} shows raw text "${b.raw}"`);
        }
        if (expected !== null && rendered !== expected) {
            problems.push(`${expected} mermaid fence(s) in ${page.md}, ${rendered} diagram(s) rendered`);
        }
        record('mermaid', page.html, `${rendered}/${state.length} block(s) rendered as SVG`, problems);

        // images
        const { images, svgRefs } = await tab.evaluate(imageState);
        const broken = [...new Set(images.filter((i) => !i.ok).map((i) => i.src))];
        const badSvg = [];
        for (const url of svgRefs) {
            const res = await tab.request.get(url, { timeout: 10000 }).catch((err) => ({ error: err.message }));
            if (res.error) badSvg.push(`${url.replace(base, '')}: ${res.error.split('\n')[0]}`);
            else if (res.status() !== 200) badSvg.push(`${url.replace(base, '')}: HTTP ${res.status()}`);
            else if (!/<svg[\s>]/.test((await res.text()).slice(0, 2000))) badSvg.push(`${url.replace(base, '')}: not an SVG`);
        }
        const uniqueImages = new Set(images.map((i) => i.src)).size;
        record('images', page.html, `${uniqueImages} image(s), ${svgRefs.length} SVG file(s)`, [
            ...broken.map((src) => `not loaded: ${src}`),
            ...badSvg.map((bad) => `bad SVG: ${bad}`),
        ]);

        // listings
        const allowed = opts.expect.directiveAllowed.filter((a) => a.page === page.html).map((a) => a.section);
        const listings = await tab.evaluate(listingState, allowed);
        const listingProblems = [
            ...listings.leaks.map((l) => `literal "${l.text}" ${l.inListing ? 'in a listing' : 'in the text'} (section #${l.section})`),
            ...listings.empty.map((e) => `code block ${e.index + 1} is empty (section #${e.section})`),
            ...listings.withoutButton.map((e) => `code block ${e.index + 1} has no copy button (section #${e.section})`),
        ];
        record('listings', page.html, `${listings.blocks} code block(s)`, listingProblems);

        // captions
        const captions = await tab.evaluate(captionState);
        const captionProblems = [];
        for (const c of captions) {
            const name = `caption ${c.index + 1} (${c.text})`;
            if (!c.listing) captionProblems.push(`${name} is not directly above a code block`);
            else if (c.gap > 16) captionProblems.push(`${name} ends ${c.gap} px above its listing (at most 16)`);
            if (!c.monospace || !c.smaller) captionProblems.push(`${name} is not in the caption style (listing-caption.css not loaded?)`);
        }
        record('captions', page.html, `${captions.length} caption(s)`, captionProblems);

        // clipboard: every copy button, each compared with its own block's
        // text (what mdBook copies: the code's innerText). A real mouse click:
        // scroll the block's top into view, move the mouse onto the button
        // (the buttons show only while the block is hovered), wait until the
        // button is visible and is what lies under the mouse, click.
        const count = await tab.evaluate(() => {
            const blocks = [...document.querySelectorAll('main pre')].filter((pre) => pre.querySelector(':scope > code'));
            blocks.forEach((pre, i) => pre.setAttribute('data-book-test-block', String(i)));
            return blocks.length;
        });
        const clipProblems = [];
        let clicked = 0;
        for (let i = 0; i < count; i++) {
            const info = await tab.evaluate(async (i) => {
                const pre = document.querySelector(`pre[data-book-test-block="${i}"]`);
                const button = pre.querySelector('.clip-button');
                if (!button) return null; // reported by the listings check
                window.scrollTo({ top: pre.getBoundingClientRect().top + window.scrollY - 200, behavior: 'instant' });
                // Start from a known text, so a click that copies nothing is seen.
                await navigator.clipboard.writeText('(clipboard not written)');
                const r = button.getBoundingClientRect();
                return { want: pre.querySelector(':scope > code').innerText, x: r.x + r.width / 2, y: r.y + r.height / 2 };
            }, i);
            if (!info) continue;
            clicked++;
            try {
                await tab.mouse.move(info.x, info.y);
                await tab.waitForFunction(
                    ({ i, x, y }) => {
                        const button = document.querySelector(`pre[data-book-test-block="${i}"] .clip-button`);
                        return getComputedStyle(button).visibility === 'visible' && document.elementFromPoint(x, y) === button;
                    },
                    { i, x: info.x, y: info.y },
                    { timeout: 5000, polling: 20 },
                );
                await tab.mouse.click(info.x, info.y);
            } catch (err) {
                clipProblems.push(`button ${i + 1} never showed under the mouse: ${err.message.split('\n')[0]}`);
                continue;
            }
            const want = info.want.replace(/\s+$/, '');
            const got = (await tab.evaluate(() => navigator.clipboard.readText())).replace(/\s+$/, '');
            if (got !== want) {
                clipProblems.push(`button ${i + 1} copied ${JSON.stringify(got.slice(0, 40))}, expected ${JSON.stringify(want.slice(0, 40))}`);
            }
        }
        record('clipboard', page.html, `${clicked} copy button(s) clicked`, clipProblems);

        // quiz, after the clipboard check: the quiz's own markup is drawn
        // only once started, and must not count among the page's listings.
        const quizRule = opts.expect.quizzes;
        await checkQuiz(tab, page, quizRule.required(page) && !(quizRule.pending || []).includes(page.md));

        // console errors, gathered over everything above
        await tab.waitForTimeout(100);
        const uniqueErrors = [...new Set(errors)];
        record('console', page.html, '', uniqueErrors);
    } finally {
        await tab.close();
    }
}

// ---------------------------------------------------------------- search

async function checkSearch(context, base, startPage, query, expected) {
    const name = `"${query}"`;
    const tab = await context.newPage();
    await blockExternal(tab, base, new Set());
    // Errors while searching; those of the page the hit opens are the
    // console check's, on that page.
    const errors = [];
    let searching = true;
    tab.on('pageerror', (err) => searching && errors.push(String(err.message).split('\n')[0]));
    tab.on('console', (msg) => searching && msg.type() === 'error' && errors.push(msg.text().slice(0, 200)));
    try {
        await tab.goto(base + startPage, { waitUntil: 'load', timeout: 20000 });
        // As a reader would: press `s`, type, read the list.
        await tab.locator('body').press('s');
        await tab.locator('#mdbook-searchbar').waitFor({ state: 'visible', timeout: 5000 });
        await tab.keyboard.type(query, { delay: 15 });
        const header = tab.locator('#mdbook-searchresults-header');
        await tab.waitForFunction(
            (q) => document.querySelector('#mdbook-searchresults-header')?.textContent.includes(`'${q}'`),
            query,
            { timeout: 10000 },
        );
        const hits = tab.locator('#mdbook-searchresults li a');
        const count = await hits.count();
        // A query whose expectation is null must find nothing.
        if (expected === null) {
            const first = count ? await hits.first().getAttribute('href') : '';
            record('search', name, `${count} result(s)`, count ? [`expected none, first hit ${first}`] : []);
            return;
        }
        if (count === 0) {
            record('search', name, '', [`no results (${(await header.textContent()).trim()})`]);
            return;
        }
        const first = hits.first();
        const href = await first.getAttribute('href');
        const target = new URL(href, tab.url());
        searching = false;
        await first.click({ timeout: 5000 });
        await tab.waitForURL((u) => u.pathname === target.pathname, { timeout: 10000 });
        await tab.waitForLoadState('load', { timeout: 10000 });
        const opened = path.posix.relative(new URL(base).pathname, new URL(tab.url()).pathname);
        const title = await tab.locator('main h1').first().textContent({ timeout: 5000 }).catch(() => '?');
        record('search', name, `${count} result(s); first hit opens ${opened} ("${title.trim()}")`, [
            ...(expected.includes(opened)
                ? []
                : [`expected ${expected.length ? expected.join(' or ') : '(no page qualifies)'}`]),
            ...errors.map((e) => `error: ${e}`),
        ]);
    } catch (err) {
        record('search', name, '', [err.message.split('\n')[0]]);
    } finally {
        await tab.close();
    }
}

// The language picker (lang-picker.js): on `page`, a select listing every
// language built, the page's own selected; choosing another opens the same
// page, at the same section, in that language.
async function checkPicker(context, base, page, lang, languages) {
    const tab = await context.newPage();
    await blockExternal(tab, base, new Set());
    const problems = [];
    try {
        await tab.goto(base + page.html + '#quiz', { waitUntil: 'load', timeout: 20000 });
        const own = await tab.evaluate(() => document.documentElement.lang);
        if (own !== lang) problems.push(`the page's lang is "${own}", expected "${lang}"`);
        const select = tab.locator('#lang-picker');
        await select.waitFor({ state: 'visible', timeout: 5000 });
        const options = await select.locator('option').evaluateAll((os) => os.map((o) => [o.value, o.selected]));
        const offered = options.map(([v]) => v).sort();
        if (offered.join() !== [...languages].sort().join()) problems.push(`offers ${offered.join(', ')}, expected ${languages.join(', ')}`);
        if (!options.some(([v, selected]) => v === lang && selected)) problems.push(`${lang} is not the selected language`);
        for (const other of languages.filter((l) => l !== lang)) {
            await tab.goto(base + page.html + '#quiz', { waitUntil: 'load', timeout: 20000 });
            await tab.locator('#lang-picker').waitFor({ state: 'visible', timeout: 5000 });
            const siteRoot = lang === 'en' ? new URL(base) : new URL('../', base);
            const expected = new URL((other === 'en' ? '' : other + '/') + page.html, siteRoot).pathname;
            await Promise.all([
                tab.waitForURL((u) => u.pathname === expected, { waitUntil: 'load', timeout: 10000 }),
                tab.locator('#lang-picker').selectOption(other),
            ]);
            const landed = await tab.evaluate(() => [document.documentElement.lang, location.pathname, location.hash]);
            if (landed[0] !== other || !landed[1].endsWith('/' + page.html) || landed[2] !== '#quiz') {
                problems.push(`choosing ${other} opened ${landed[1]}${landed[2]} (lang "${landed[0]}")`);
            }
        }
    } catch (err) {
        problems.push(err.message.split('\n')[0]);
    } finally {
        await tab.close();
    }
    record('picker', page.html, `${languages.length} languages offered, each opening this page`, problems);
}

// ---------------------------------------------------------------- main

async function main() {
    let args;
    try {
        args = parseArgs(process.argv.slice(2));
    } catch (err) {
        console.error(`browser.mjs: ${err.message}`);
        process.exit(2);
    }
    const started = Date.now();
    // A hard limit, so the suite always ends by itself.
    setTimeout(() => {
        console.error(`browser.mjs: time limit of ${args.timeLimit} s reached, giving up`);
        summarize(started, args, true);
        process.exit(1);
    }, Number(args.timeLimit) * 1000).unref();

    const base = args.base.endsWith('/') ? args.base : args.base + '/';
    const expect = await import(pathToFileURL(path.resolve(args.expect)).href);
    const { pages, drafts } = summaryPages(args.src);
    if (pages.length === 0) {
        console.error(`browser.mjs: no pages found in ${args.src}/SUMMARY.md`);
        process.exit(2);
    }
    if (args.screenshots) fs.mkdirSync(args.screenshots, { recursive: true });
    console.log(`${pages.length} page(s) in SUMMARY.md` + (drafts.length ? `; draft(s) without a page: ${drafts.join(', ')}` : ''));
    // The Markdown and the English quiz files are the English book's; a
    // translation's pages are checked in the browser only.
    if (!args.lang || args.lang === 'en') checkQuizFiles(args.src, pages, expect.quizzes);

    const browser = await chromium.launch({
        executablePath: args.chromium,
        timeout: 30000,
        // As root, Chromium needs --no-sandbox. The rest keep it from calling
        // home (this machine has no network) and from using a GPU.
        args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-dev-shm-usage',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--disable-quic',
            '--no-first-run',
        ],
    });
    try {
        const origin = new URL(base).origin;
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
        context.setDefaultTimeout(15000);

        for (const page of pages) await checkPage(context, base, page, { ...args, expect });

        const ctx = {
            built: (html) => fs.existsSync(path.join(args.html, html)),
            pagesContaining: (re) => pages.filter((p) => re.test(pageText(args.html, p.html))).map((p) => p.html),
        };
        const queries = args.lang && args.lang !== 'en' ? expect.searchIn[args.lang] : expect.search;
        if (!queries) throw new Error(`the expectations have no search queries for ${args.lang}`);
        for (const { query, expect: wanted } of queries) {
            await checkSearch(context, base, pages[0].html, query, wanted(ctx));
        }
        if (args.languages) {
            await checkPicker(context, base, pages.find((p) => /^ch\d\d-/.test(p.html)) || pages[0], args.lang || 'en', args.languages.split(','));
        }
        await context.close();
    } finally {
        await browser.close();
    }
    summarize(started, args, false);
    process.exit(results.every((r) => r.ok) ? 0 : 1);
}

function summarize(started, args, timedOut) {
    const failed = results.filter((r) => !r.ok);
    const passed = results.length - failed.length;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (args.report) {
        fs.writeFileSync(args.report, JSON.stringify({ results, timedOut, seconds: Number(seconds) }, null, 2));
    }
    console.log('');
    if (failed.length) {
        console.log(`${failed.length} check(s) failed:`);
        for (const f of failed) console.log(`  ${f.check} ${f.page}: ${f.detail}`);
    }
    console.log(`browser checks took ${seconds} s${timedOut ? ' (stopped at the time limit)' : ''}`);
    console.log(`browser: ${passed} passed, ${failed.length} failed`);
}

main().catch((err) => {
    console.error(`browser.mjs: ${err.stack || err}`);
    process.exit(2);
});
