// Draws the book's diagrams in the reader's browser, so that reading the
// book needs mdbook alone: a ```mermaid fence reaches the page as an
// ordinary code block, a <code class="language-mermaid"> in a <pre>, and
// this script hands its text to mermaid.min.js, which replaces it with an
// SVG.
//
// The diagrams follow the page's theme: the dark themes get mermaid's dark
// palette. Mermaid draws once, so switching between a light and a dark
// theme reloads the page to draw them again.

(() => {
    const darkThemes = ['ayu', 'navy', 'coal'];
    const lightThemes = ['light', 'rust'];
    const pageClasses = document.documentElement.classList;
    const pageIsDark = darkThemes.some((theme) => pageClasses.contains(theme));

    // Each fence becomes what mermaid draws: its source text in a <pre
    // class="mermaid">, in place of the code block (and of the copy button
    // mdbook gave it).
    const diagrams = [];
    for (const code of document.querySelectorAll('pre > code.language-mermaid')) {
        const diagram = document.createElement('pre');
        diagram.className = 'mermaid';
        diagram.textContent = code.textContent;
        code.parentElement.replaceWith(diagram);
        diagrams.push(diagram);
    }

    mermaid.initialize({ startOnLoad: false, theme: pageIsDark ? 'dark' : 'default' });
    if (diagrams.length > 0) {
        // A diagram that does not parse shows mermaid's error picture in its
        // place; the rejected promise has nothing more to tell the reader.
        mermaid.run({ nodes: diagrams }).catch(() => {});
    }

    const reloadIfSwitching = (toDark) => () => {
        if (toDark !== pageIsDark) {
            window.location.reload();
        }
    };
    for (const theme of darkThemes) {
        document.getElementById('mdbook-theme-' + theme)?.addEventListener('click', reloadIfSwitching(true));
    }
    for (const theme of lightThemes) {
        document.getElementById('mdbook-theme-' + theme)?.addEventListener('click', reloadIfSwitching(false));
    }
})();
