// Draws the book's diagrams in the reader's browser, so that reading the
// book needs mdbook alone. A diagram is written in the Markdown as
//
//     <script type="text/x-mermaid">
//     flowchart TB
//         A --> B
//     </script>
//
// which the browser neither runs nor shows, and which mdBook's search
// index skips (it indexes no <script>), so a search finds prose and never
// a diagram's source. This script hands each one's text to mermaid.min.js,
// which replaces it with an SVG.
//
// The diagrams follow the page's theme: the dark themes get mermaid's dark
// palette. Mermaid draws once, so switching between a light and a dark
// theme reloads the page to draw them again.

(() => {
    const darkThemes = ['ayu', 'navy', 'coal'];
    const lightThemes = ['light', 'rust'];
    const pageClasses = document.documentElement.classList;
    const pageIsDark = darkThemes.some((theme) => pageClasses.contains(theme));

    // Each source becomes what mermaid draws: its text in a <pre
    // class="mermaid">, in the script's place.
    const diagrams = [];
    for (const source of document.querySelectorAll('script[type="text/x-mermaid"]')) {
        const diagram = document.createElement('pre');
        diagram.className = 'mermaid';
        diagram.textContent = source.textContent;
        source.replaceWith(diagram);
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
