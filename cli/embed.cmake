# cmake -DIN=FILE -DOUT=FILE.c -DNAME=symbol -P embed.cmake
# Writes FILE.c defining `const char symbol[]` (FILE's bytes and a final NUL)
# and `const size_t symbol_len`, so that the chorus command carries FILE.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUT}" "/* generated from ${IN} by cli/embed.cmake: do not edit */\n#include <stddef.h>\n"
  "const char ${NAME}[] = {\n${body}0x00};\nconst size_t ${NAME}_len = sizeof ${NAME} - 1;\n")
