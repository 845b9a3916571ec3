#version 330 core
// A textured quad in window pixels: the cached point layer, moved to follow the camera.
layout(location = 0) in vec2 aPixel;
layout(location = 1) in vec2 aTexCoord;
uniform vec2 uViewport;  // logical pixels of the canvas
out vec2 vTexCoord;
void main() {
    vec2 ndc = aPixel / uViewport * 2.0 - 1.0;
    gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
    vTexCoord = aTexCoord;
}
