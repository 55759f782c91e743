// Admin: what an import checked: its input validation, and its reference
// solutions, run at once by the import (expected vs got, live).

import type { ProblemImportResult } from "../../api";
import { t } from "../../i18n";
import { SolutionsPanel } from "./solutions";

/** ImportChecks shows an import's input validation outcome (a refused
 *  package never gets here: the import's error names the input) and, when
 *  the package has reference solutions, their runs. */
export function ImportChecks({ result }: { result: ProblemImportResult }) {
  const v = result.validation;
  return (
    <div data-testid="import-checks">
      <p data-testid="import-validation" data-status={v.status}>
        {v.status === "valid"
          ? t("admin.icpc.valid", { inputs: v.inputs ?? 0, validators: (v.validators ?? []).join(", ") })
          : t("admin.icpc.noValidator")}
      </p>
      {result.solutions && result.solutions.solutions.length > 0 && <SolutionsPanel slug={result.problem.slug} />}
    </div>
  );
}
