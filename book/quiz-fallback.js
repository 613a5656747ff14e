// Each chapter page ends with a quiz, written in the Markdown as a paragraph
//
//     {{#quiz ../quizzes/ch01-threads.toml}}
//
// that the mdbook-quiz preprocessor replaces with the quiz. The preprocessor
// is optional in book.toml, so a reader who built the book with mdbook alone
// gets the directive as plain text; this script puts a short note in its
// place, saying what to install to see the quiz.

(() => {
    const main = document.querySelector('main');
    if (!main) {
        return;
    }
    for (const paragraph of main.querySelectorAll('p')) {
        if (!/^\{\{#quiz [^}]+\}\}$/.test(paragraph.textContent.trim())) {
            continue;
        }
        const note = document.createElement('p');
        note.className = 'quiz-fallback';
        note.append("This page's quiz needs mdbook-quiz 0.5.0: ");
        const command = document.createElement('code');
        command.textContent = 'cargo install --locked mdbook-quiz@0.5.0';
        note.append(command, ', then build the book again.');
        paragraph.replaceWith(note);
    }
})();
