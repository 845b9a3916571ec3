#version 330 core
// The layer holds premultiplied colour (points blended onto transparent black).
in vec2 vTexCoord;
uniform sampler2D uLayer;
out vec4 fragColour;
void main() { fragColour = texture(uLayer, vTexCoord); }
