// SwiftPM drops pkg-config's -D_XOPEN_SOURCE, so ask for the wide-character API here.
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <locale.h>
#include <ncursesw/curses.h>

// Macros and C globals that do not import into Swift 6.
static inline WINDOW *shim_stdscr(void) { return stdscr; }
static inline int shim_COLOR_PAIRS(void) { return COLOR_PAIRS; }
static inline int shim_COLORS(void) { return COLORS; }
static inline attr_t shim_A_BOLD(void) { return A_BOLD; }
static inline attr_t shim_A_REVERSE(void) { return A_REVERSE; }
static inline attr_t shim_A_UNDERLINE(void) { return A_UNDERLINE; }
static inline attr_t shim_A_DIM(void) { return A_DIM; }
static inline int shim_KEY_F(int n) { return KEY_F(n); }
static inline FILE *shim_stdin(void) { return stdin; }
static inline FILE *shim_stdout(void) { return stdout; }
static inline mmask_t shim_BUTTON1_PRESSED(void) { return BUTTON1_PRESSED; }
static inline mmask_t shim_BUTTON4_PRESSED(void) { return BUTTON4_PRESSED; }
static inline mmask_t shim_BUTTON5_PRESSED(void) { return BUTTON5_PRESSED; }
static inline mmask_t shim_ALL_MOUSE_EVENTS(void) { return ALL_MOUSE_EVENTS; }

#include <ncursesw/term.h>
// Whether terminals of type `term` can move the cursor (terminfo cup); an unknown type counts as able.
static inline int shim_can_address_cursor(const char *term) {
    int status = 0;
    TERMINAL *saved = cur_term;
    if (setupterm(term, 1, &status) != OK) return 1;
    char *cup = tigetstr("cup");
    int able = cup != NULL && cup != (char *)-1;
    del_curterm(set_curterm(saved));
    return able;
}
