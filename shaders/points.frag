#version 330 core
// A round splat with a soft rim; opacity is scaled by uAlpha for alpha blending.
in vec4 vColour;
uniform float uAlpha;
out vec4 fragColour;
void main() {
    if (vColour.a == 0.0) discard;  // a cell outside the gates
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(p, p);
    if (r2 > 1.0) discard;
    float edge = 1.0 - smoothstep(0.6, 1.0, r2);
    fragColour = vec4(vColour.rgb, vColour.a * uAlpha * edge);
}
