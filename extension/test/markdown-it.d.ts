// The little of markdown-it the tests use (the package ships no types).
declare module 'markdown-it' {
  interface Options {
    html?: boolean;
    linkify?: boolean;
    breaks?: boolean;
  }
  class MarkdownIt {
    constructor(options?: Options);
    render(src: string): string;
    renderInline(src: string): string;
  }
  export = MarkdownIt;
}
