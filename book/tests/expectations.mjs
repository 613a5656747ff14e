// What the browser suite expects of the real book, kept apart from the code
// that checks it so that a new chapter changes data, not logic.
//
// `search`: each query is typed into mdBook's search box; the first result is
// clicked, and the page it opens must be one of `expect(ctx)` (or, if
// `expect` returns null, there must be no result at all). `ctx` gives:
//   ctx.built(page)          true if that HTML page exists in the built book;
//   ctx.pagesContaining(re)  the SUMMARY pages whose built text matches `re`.
//
// `directiveAllowed`: places where the literal text `{{#include` or `ANCHOR`
// is meant to be read, as prose or as an example, and is not a listing that
// failed to expand. Everything else that shows such text fails.

export const search = [
    {
        query: 'epoll',
        // Chapter 4 builds an epoll loop by hand; its page must come first.
        expect: () => ['ch04-epoll.html'],
    },
    {
        query: 'context switch',
        // Chapter 2 measures the price of a context switch.
        expect: () => ['ch02-context-switch.html'],
    },
    {
        query: 'work stealing',
        // Chapter 7 teaches work stealing: its overview page draws the whole
        // runtime, its scheduler page explains the steal, and the glossary's
        // entry defines the term and links to both. Once those pages are
        // built, the first hit must be one of them. While Chapter 7 is a
        // draft in SUMMARY.md (an entry with an empty link, so no page), no
        // page teaches the topic; the first hit may then be any page that
        // mentions it (the introduction's road map, or a chapter that points
        // ahead to Chapter 7). "work-stealing" counts: the search splits
        // words at hyphens too.
        expect: ({ built, pagesContaining }) => {
            const teaching = ['ch07-runtime.html', 'ch07-scheduler.html', 'glossary.html'].filter(built);
            return teaching.length ? teaching : pagesContaining(/work[\s-]+stealing/i);
        },
    },
    {
        query: 'rankSpacing',
        // A word that only the diagrams' sources contain (their layout
        // settings). The diagrams are <script type="text/x-mermaid"> blocks,
        // which the search index skips, so it finds nothing: a reader's
        // search shows prose, never a diagram's source.
        expect: () => null,
    },
];

// `searchIn`: the same searches in each translation, in its words. The
// pages are the same files in every language.
const teachingWorkStealing = ({ built }) =>
    ['ch07-runtime.html', 'ch07-scheduler.html', 'glossary.html'].filter(built);
export const searchIn = {
    'pt-BR': [
        { query: 'epoll', expect: () => ['ch04-epoll.html'] },
        { query: 'troca de contexto', expect: () => ['ch02-context-switch.html'] },
        { query: 'work stealing', expect: teachingWorkStealing },
        { query: 'rankSpacing', expect: () => null },
    ],
    de: [
        { query: 'epoll', expect: () => ['ch04-epoll.html'] },
        { query: 'Kontextwechsel', expect: () => ['ch02-context-switch.html'] },
        { query: 'Work-Stealing', expect: teachingWorkStealing },
        { query: 'rankSpacing', expect: () => null },
    ],
};

export const directiveAllowed = [
    {
        page: 'how-to-use.html',
        section: 'how-listings-work',
        reason: 'explains the {{#include}} directive and shows an ANCHOR comment pair as an example',
    },
];

// `quizzes`: every chapter page (the chNN-*.md files of SUMMARY.md, Chapters
// 1 to 10) ends with a quiz of `min` to `max` questions, in a `## Quiz` section
// holding `{{#quiz ../quizzes/PAGE.toml}}`. `pending` lists the pages whose
// quiz is still being written: they may have none yet. A pending page that
// has a quiz is checked like any other, and the check says it can leave the
// list; an empty list means every chapter page must have its quiz.
export const quizzes = {
    required: (page) => /^ch\d\d-[\w-]+\.md$/.test(page.md),
    min: 3,
    max: 6,
    pending: [],
};
