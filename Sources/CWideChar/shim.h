// wcwidth(3) from the C library (glibc), which Swift's Glibc module does not export:
// the terminal's own idea of how many columns a character takes (CJK 2, combining 0).
#include <stddef.h>

int wcwidth(wchar_t c);
