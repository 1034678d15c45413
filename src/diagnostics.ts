/** A problem the user can act on: what, where (file + JSON pointer) and how to fix it. */
export interface Diagnostic {
  code: string;
  severity: 'error' | 'warning';
  message: string;
  file?: string;
  pointer?: string;
  help?: string;
}

/** Thrown by stages for problems in the user's input; the CLI prints it without a stack trace. */
export class McpGenError extends Error {
  constructor(
    readonly diagnostic: Diagnostic,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(diagnostic.message);
    this.name = 'McpGenError';
  }
}

export function formatDiagnostic(d: Diagnostic): string {
  const where = `${d.file ?? ''}${d.pointer !== undefined ? `#${d.pointer}` : ''}`;
  const head = `${d.severity} ${d.code}${where ? ` at ${where}` : ''}: ${d.message}`;
  return d.help ? `${head}\n  help: ${d.help}` : head;
}
