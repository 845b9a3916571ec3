#version 330 core
// One splat per cell: 2D embedding position and a per-cell colour.
layout(location = 0) in vec2 aPosition;
layout(location = 1) in vec4 aColour;
uniform vec2 uScale;   // world units -> clip space
uniform vec2 uOffset;  // clip-space offset
uniform float uPointSize;
out vec4 vColour;
void main() {
    gl_Position = vec4(aPosition * uScale + uOffset, 0.0, 1.0);
    gl_PointSize = uPointSize;
    vColour = aColour;
}
