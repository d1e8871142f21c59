/* page.h -- the self-contained pages chorus writes (`explain --html`,
 * `timeline --html`): a template built into the command (cli/embed.cmake)
 * whose markers are replaced by JSON. */
#ifndef CHORUS_CLI_PAGE_H
#define CHORUS_CLI_PAGE_H

#include <stddef.h>

/* The templates, cli/explain_page.html and cli/timeline_page.html. */
extern const char explain_page[];
extern const size_t explain_page_len;
extern const char timeline_page[];
extern const size_t timeline_page_len;

/* Write the template to path with marks[0..n-1], in that order, replaced by
 * data[i] (lens[i] bytes of JSON, written so that no "</" ends the page's
 * <script>: JSON allows "<\/"). 0, or 1 after a message "chorus CMD: OPT
 * PATH: why" (or naming a marker the template lacks). */
int page_write(const char *cmd, const char *opt, const char *path, const char *tmpl, size_t tmpl_len, int n,
               const char *const *marks, const char *const *data, const size_t *lens);

#endif
