/** A style sheet imported as its text (lib/liveness-asset.ts bundles `.css` with esbuild's text loader). */
declare module '*.css' {
  const text: string;
  export default text;
}
