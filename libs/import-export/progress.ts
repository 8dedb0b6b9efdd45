/** How far a long import or export is: the stage, and units done of the stage's total if known. */
export interface ProgressEvent {
  stage: string;
  done: number;
  total?: number;
}

export type ProgressReporter = (event: ProgressEvent) => void;

export const noProgress: ProgressReporter = () => undefined;
