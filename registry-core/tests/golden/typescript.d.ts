declare const tools: {
  /** Replace text in a file. */
  edit_file(input: {
    backup?: {
      /** Directory for the copy. */
      dir: string;
      /** How many copies to keep. */
      keep?: number | null;
    } | null;
    /** Replacements, applied in order. */
    edits: {
      /** Text to put in its place. */
      new_text: string;
      /** Text to find; must occur in the file. */
      old_text: string;
      /** Replace every occurrence, not only the first. */
      replace_all?: boolean | null;
    }[];
    /** Line endings of the result. */
    line_endings?: "keep" | "lf" | "crlf" | null;
    /** The file to edit. */
    path: string;
  }): Promise<string>;
  /**
   * Read a UTF-8 file and return its contents with line numbers.
   *
   * Binary files are refused.
   */
  read_file(input: {
    /** How many lines to return. */
    limit?: number | null;
    /** First line to return, 1-based. */
    offset?: number | null;
    /** Path relative to the workspace root. */
    path: string;
  }): Promise<string>;
  /** Replace the session's todo list. */
  todo_write(input: {
    /** The whole list, replacing the previous one. */
    items: {
      status: "pending" | "done";
      text: string;
    }[];
  }): Promise<string>;
  /** Fetch a web page and return it as Markdown. */
  web_fetch(input: {
    /** Extra request headers. */
    headers?: Record<string, string>;
    /** The URL to fetch. */
    url: string;
  }): Promise<string>;
  /**
   * Deploy the site to production.
   * Runs the build first.
   *
   * Asks before uploading.
   */
  deploy(input: Record<string, unknown>): Promise<string>;
  /** Search notes by text. */
  mcp__notes__search(input: {
    limit?: number;
    /** Words to look for. */
    query: string;
  }): Promise<string>;
  /** Set tags on a note. */
  mcp__notes__tag(input: {
    note_id: string;
    tags: Record<string, string>;
  }): Promise<string>;
};
