#version 330 core
// Overlay geometry (landmark graph, markers) in window pixels with a per-vertex colour.
layout(location = 0) in vec2 aPixel;
layout(location = 1) in vec4 aColour;
uniform vec2 uViewport;  // framebuffer size in pixels
out vec4 vColour;
void main() {
    vec2 ndc = aPixel / uViewport * 2.0 - 1.0;
    gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
    vColour = aColour;
}
