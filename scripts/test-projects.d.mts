/** The test files of each vitest project (relative paths, each file in exactly one) and why a file is not unit. */
export function testProjects(root?: string): {
  unit: string[];
  integration: string[];
  browser: string[];
  why: Map<string, string>;
};
