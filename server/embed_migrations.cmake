# Writes a C++ source holding the SQL migrations, so that the server needs no
# files besides its database. Inputs: MIGRATIONS (the .sql files, separated by
# '|'), OUTPUT.
string(REPLACE "|" ";" files "${MIGRATIONS}")
list(SORT files)
set(body "")
foreach(f ${files})
  get_filename_component(name "${f}" NAME)
  file(READ "${f}" text)
  string(APPEND body "      {\"${name}\", R\"CA_MIGRATION_SQL(${text})CA_MIGRATION_SQL\"},\n")
endforeach()
file(WRITE "${OUTPUT}.tmp" "// Generated from migrations/ at build time. Do not edit.\n#include \"storage.h\"\n\nnamespace counterattack::server {\n\nconst std::vector<std::pair<std::string, std::string>>& embedded_migrations() {\n  static const std::vector<std::pair<std::string, std::string>> all = {\n${body}  };\n  return all;\n}\n\n}  // namespace counterattack::server\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
