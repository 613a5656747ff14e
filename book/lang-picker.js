// A language picker in the menu bar: English, Português (Brasil), Deutsch,
// each link opening the same page (and section) in that language. The
// English book sits at the site's root and each translation in a folder
// named after its language (pt-BR/, de/), as book/i18n/build lays them out;
// every page of every language has the same file name and, because each
// translated heading keeps the English heading's id, the same anchors.
//
// The languages offered are those the site has: languages.json at the
// site's root lists them. The English book carries one that names English
// alone (src/languages.json), so a reader serving the English book
// (`mdbook serve book`) sees no picker; book/i18n/build writes the list of
// every language it built over it.

(() => {
    const languages = [
        { code: 'en', name: 'English' },
        { code: 'pt-BR', name: 'Português (Brasil)' },
        { code: 'de', name: 'Deutsch' },
    ];
    const current = document.documentElement.lang || 'en';
    if (!languages.some((l) => l.code === current)) return;
    // mdBook defines path_to_root on every page: from this page to its
    // book's root. A translation's root is one folder below the site's.
    const bookRoot = new URL((typeof path_to_root === 'string' && path_to_root) || './', location.href);
    const siteRoot = current === 'en' ? bookRoot : new URL('../', bookRoot);
    const page = location.pathname.startsWith(bookRoot.pathname)
        ? location.pathname.slice(bookRoot.pathname.length)
        : '';
    const target = (code) =>
        new URL((code === 'en' ? '' : code + '/') + (page || 'index.html'), siteRoot);

    const bar = document.querySelector('#mdbook-menu-bar .right-buttons, .menu-bar .right-buttons');
    if (!bar) return;

    fetch(new URL('languages.json', siteRoot))
        .then((r) => (r.ok ? r.json() : []))
        .catch(() => [])
        .then((built) => {
            const available = languages.filter((l) => l.code !== current && built.includes(l.code));
            if (available.length === 0) return;
            const picker = document.createElement('nav');
            picker.className = 'lang-picker';
            picker.setAttribute('aria-label', 'Language');
            const select = document.createElement('select');
            select.id = 'lang-picker';
            select.title = 'Language';
            select.setAttribute('aria-label', 'Language');
            for (const l of [languages.find((x) => x.code === current), ...available]) {
                const option = document.createElement('option');
                option.value = l.code;
                option.textContent = l.name;
                option.lang = l.code;
                option.selected = l.code === current;
                select.appendChild(option);
            }
            select.addEventListener('change', () => {
                const url = target(select.value);
                url.hash = location.hash;
                location.href = url.href;
            });
            picker.appendChild(select);
            bar.prepend(picker);
        });
})();
