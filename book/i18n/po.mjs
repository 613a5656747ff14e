// Reading gettext catalogues (.po and .pot files), for the book's
// translation checks (tests/i18n.mjs) and its diagram translator
// (i18n/diagrams.mjs). No dependencies: a reader's build may run it with
// nothing installed but Node.js.
//
// Every entry is {msgctxt, msgid, msgstr, fuzzy, refs}; obsolete entries
// (`#~`) are left out.

function unquote(s) {
    return JSON.parse(s.replace(/\t/g, '\\t'));
}

export function parsePo(text) {
    const entries = [];
    for (const block of text.split(/\n\s*\n/)) {
        const e = { refs: [], fuzzy: false, obsolete: false };
        let key = null;
        for (const line of block.split('\n')) {
            if (line.startsWith('#~')) {
                e.obsolete = true;
            } else if (line.startsWith('#:')) {
                e.refs.push(...line.slice(2).trim().split(/\s+/));
            } else if (line.startsWith('#,')) {
                if (/\bfuzzy\b/.test(line)) e.fuzzy = true;
            } else if (line.startsWith('#')) {
                // a translator's or extractor's comment
            } else {
                const m = line.match(/^(msgctxt|msgid|msgstr)\s+(".*")\s*$/);
                if (m) {
                    key = m[1];
                    e[key] = unquote(m[2]);
                } else if (key && /^".*"\s*$/.test(line.trim())) {
                    e[key] += unquote(line.trim());
                }
            }
        }
        if (e.msgid !== undefined && !e.obsolete) entries.push(e);
    }
    return entries;
}

// A string as a PO file writes it: one quoted line per line of text.
export function quotePo(text) {
    const escape = (s) => JSON.stringify(s).slice(1, -1).replace(/\\u([0-9a-f]{4})/g, (m, h) => String.fromCharCode(parseInt(h, 16)));
    const lines = text.split(/(?<=\n)/);
    if (lines.length <= 1) return `"${escape(text)}"`;
    return '""\n' + lines.map((l) => `"${escape(l)}"`).join('\n');
}
