"""GrowthBook's stats engine (gbstats) on the arms the Swift comparison tests give it.

Reads {"cases": [...]} from the file named by its argument and writes {"results": [...]} on stdout, one result per case, in order. A case
is either {"kind": "proportion", "control": {"users", "converters"}, "variant": {...}} or {"kind": "cuped",
"control": {"users", "sum_y", "sum_y_squares", "sum_x", "sum_x_squares", "sum_xy"}, "variant": {...}}.
Each result holds, for "absolute" and "relative", the engine's point estimate, standard error, 95% interval
and p-value of the fixed-horizon two-sided test, the same of the sequential test with the given tuning, and
(proportions) the Bayesian chance to win; run by Tests/GrowthBookComparisonTests through CARDINAL_GBSTATS_PYTHON.
"""
import json
import sys

from gbstats.bayesian.tests import EffectBayesianABTest, EffectBayesianConfig
from gbstats.frequentist.tests import (
    FrequentistConfig,
    SequentialConfig,
    SequentialTwoSidedTTest,
    TwoSidedTTest,
)
from gbstats.models.statistics import (
    ProportionStatistic,
    RegressionAdjustedStatistic,
    SampleMeanStatistic,
)


def proportion(arm):
    return ProportionStatistic(n=arm["users"], sum=arm["converters"])


def regression_adjusted(arm):
    # theta is set by the test from both arms (gbstats' compute_theta), so 0 here is a placeholder.
    return RegressionAdjustedStatistic(
        n=arm["users"],
        post_statistic=SampleMeanStatistic(n=arm["users"], sum=arm["sum_y"], sum_squares=arm["sum_y_squares"]),
        pre_statistic=SampleMeanStatistic(n=arm["users"], sum=arm["sum_x"], sum_squares=arm["sum_x_squares"]),
        post_pre_sum_of_products=arm["sum_xy"],
        theta=0,
    )


def summary(result):
    return {
        "estimate": result.expected,
        "stddev": result.uplift.stddev,
        "ci": list(result.ci),
        "p_value": getattr(result, "p_value", None),
    }


def analyse(case, tuning):
    make = proportion if case["kind"] == "proportion" else regression_adjusted
    output = {}
    for difference_type in ("absolute", "relative"):
        fixed = TwoSidedTTest(
            make(case["control"]), make(case["variant"]), FrequentistConfig(difference_type=difference_type)
        )
        sequential = SequentialTwoSidedTTest(
            make(case["control"]),
            make(case["variant"]),
            SequentialConfig(difference_type=difference_type, sequential_tuning_parameter=tuning),
        )
        entry = {
            "fixed": summary(fixed.compute_result()),
            "fixed_dof": float(fixed.dof),
            "sequential": summary(sequential.compute_result()),
        }
        if case["kind"] == "cuped":
            entry["theta"] = fixed.stat_a.theta if isinstance(fixed.stat_a, RegressionAdjustedStatistic) else 0.0
        else:
            bayesian = EffectBayesianABTest(
                make(case["control"]),
                make(case["variant"]),
                EffectBayesianConfig(difference_type=difference_type),
            ).compute_result()
            entry["chance_to_win"] = bayesian.chance_to_win
        output[difference_type] = entry
    return output


def main():
    with open(sys.argv[1]) as request_file:
        request = json.load(request_file)
    tuning = request.get("sequential_tuning_parameter", 5000)
    json.dump({"results": [analyse(case, tuning) for case in request["cases"]]}, sys.stdout)


if __name__ == "__main__":
    main()
