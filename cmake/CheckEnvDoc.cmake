# CheckEnvDoc.cmake - fails when docs/ENV.md differs from `shmem_info --markdown` (the env table is the source).
execute_process(COMMAND ${INFO} --markdown OUTPUT_VARIABLE out RESULT_VARIABLE rc)
file(READ ${DOC} doc)
if(NOT rc EQUAL 0 OR NOT out STREQUAL doc)
  message(FATAL_ERROR "docs/ENV.md is stale: regenerate it with `shmem_info --markdown > docs/ENV.md`")
endif()
