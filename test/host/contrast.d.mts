// Types of contrast.mjs's pure parts, for the unit test (test/unit/themeColours.test.ts).
export type Rgb = [number, number, number];
export function luminance(colour: Rgb): number;
export function contrastRatio(a: Rgb, b: Rgb): number;
export function over(top: [number, number, number, number], bottom: Rgb): Rgb;
export function requiredRatio(fontSizePx: number, fontWeight: number): number;
export function contrastScript(base: Rgb): string;
