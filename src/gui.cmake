# The interactive application: render (OpenGL), app (state, commands), ui (Dear ImGui), gui (main).
# Filled in with the desktop application; until then nothing is built here.
