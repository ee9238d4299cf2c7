# EmbedText.cmake - cmake -DIN=file -DOUT=header -P EmbedText.cmake: the file as a C string (generated; do not edit).
file(READ ${IN} text HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${text}")
file(WRITE ${OUT} "/* generated from ${IN} by cmake/EmbedText.cmake - do not edit */\n"
  "static const char gshmemi_kernels_ptx[] = {${bytes} 0x00};\n")
