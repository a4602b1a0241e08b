#pragma once
namespace ridge_bench {
void register_ukr_benchmarks();
}
