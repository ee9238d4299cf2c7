# EmbedText.cmake - cmake -DIN=file -DOUT=header [-DNAME=array] -P EmbedText.cmake: the file's bytes as a C array,
# NUL-terminated (PTX text, or a fatbin's binary), 16-byte aligned (generated; do not edit).
if(NOT NAME)
  set(NAME gshmemi_kernels_ptx)
endif()
file(READ ${IN} text HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${text}")
file(WRITE ${OUT} "/* generated from ${IN} by cmake/EmbedText.cmake - do not edit */\n"
  "static const _Alignas(16) unsigned char ${NAME}[] = {${bytes} 0x00};\n")
