/** The first zod problem, named by its field (`items.0.metadata.title: Too small`). */
import type { z } from 'zod';

export function describeIssues(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid input';
  const field = issue.path.join('.');
  return field ? `${field}: ${issue.message}` : issue.message;
}
