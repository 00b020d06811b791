#ifndef NETPROF_HEATMAP_PAGE_H
#define NETPROF_HEATMAP_PAGE_H

/*
 * The heatmap page's stylesheet and script, NUL-terminated: page.css and
 * page.js beside this header, turned into C at build time by
 * page_embed.cmake (the generated heatmap_page.c is in the build tree).
 */
extern const char heatmap_page_style[];
extern const char heatmap_page_script[];

#endif
