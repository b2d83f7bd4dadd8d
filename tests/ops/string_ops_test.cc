// String ops and TfIdfVectorizer: StringConcat, StringSplit, RegexFullMatch, StringNormalizer,
// TfIdfVectorizer. Expected values are worked out by hand from the ONNX spec (Python's
// str.split for StringSplit).
#include <limits>

#include "ops/ml_test_util.h"

namespace hi::test {
namespace {

DomainCase node(const std::string& op, int64_t opset, Attrs attrs, std::vector<Tensor> inputs, int outputs = 1) {
  return {op, "", opset, std::move(attrs), std::move(inputs), outputs};
}

// ---- StringConcat --------------------------------------------------------------------------

TEST(StringConcat, ElementwiseBroadcastAndScalar) {
  expect_tensor_eq(run_domain1(node("StringConcat", 20, {}, {strs({2}, {"ab", ""}), strs({2}, {"c", "d"})})),
                   strs({2}, {"abc", "d"}));
  expect_tensor_eq(run_domain1(node("StringConcat", 20, {}, {strs({2, 1}, {"x", "y"}), strs({3}, {"1", "2", "3"})})),
                   strs({2, 3}, {"x1", "x2", "x3", "y1", "y2", "y3"}));
  expect_tensor_eq(run_domain1(node("StringConcat", 20, {}, {strs({}, {"é"}), strs({}, {"!"})})), strs({}, {"é!"}));
}

TEST(StringConcat, RejectsNonStringsAndBadShapes) {
  expect_domain_error(node("StringConcat", 20, {}, {strs({2}, {"a", "b"}), f32({2}, {1, 2})}), StatusCode::kUnsupported,
                      {"StringConcat", "opset 20", "float32"});
  expect_domain_error(node("StringConcat", 20, {}, {strs({2}, {"a", "b"}), strs({3}, {"a", "b", "c"})}),
                      StatusCode::kInvalidModel, {});
}

// ---- StringSplit ---------------------------------------------------------------------------

TEST(StringSplit, DelimiterPadsToLongest) {
  auto out =
      run_domain(node("StringSplit", 20, {{"delimiter", attr_string("::")}}, {strs({3}, {"a::b::c", "", "::x"})}, 2));
  expect_tensor_eq(out[0], strs({3, 3}, {"a", "b", "c", "", "", "", "", "x", ""}));
  expect_tensor_eq(out[1], i64({3}, {3, 1, 2}));
}

TEST(StringSplit, WhitespaceDropsEmptyPieces) {
  auto out = run_domain(node("StringSplit", 20, {}, {strs({2, 2}, {" a\tb  c ", "", "one", "   "})}, 2));
  expect_tensor_eq(out[0], strs({2, 2, 3}, {"a", "b", "c", "", "", "", "one", "", "", "", "", ""}));
  expect_tensor_eq(out[1], i64({2, 2}, {3, 0, 1, 0}));
}

TEST(StringSplit, MaxsplitKeepsTheRest) {
  // "a-b-c".split("-", 1) == ["a", "b-c"]; " a  b c ".split(None, 1) == ["a", "b c"].
  auto d = run_domain(
      node("StringSplit", 20, {{"delimiter", attr_string("-")}, {"maxsplit", attr_int(1)}}, {strs({1}, {"a-b-c"})}, 2));
  expect_tensor_eq(d[0], strs({1, 2}, {"a", "b-c"}));
  auto w = run_domain(node("StringSplit", 20, {{"maxsplit", attr_int(1)}}, {strs({1}, {" a  b c "})}, 2));
  expect_tensor_eq(w[0], strs({1, 2}, {"a", "b c"}));
  auto z = run_domain(node("StringSplit", 20, {{"maxsplit", attr_int(0)}}, {strs({1}, {" a b "})}, 2));
  expect_tensor_eq(z[0], strs({1, 1}, {"a b"}));
}

TEST(StringSplit, ErrorsNameTheOp) {
  expect_domain_error(node("StringSplit", 20, {{"maxsplit", attr_int(-1)}}, {strs({1}, {"a"})}, 2),
                      StatusCode::kInvalidModel, {"StringSplit", "maxsplit", "-1"});
  expect_domain_error(node("StringSplit", 20, {}, {i64({1}, {1})}, 2), StatusCode::kUnsupported,
                      {"StringSplit", "opset 20", "int64"});
}

// ---- RegexFullMatch ------------------------------------------------------------------------

TEST(RegexFullMatch, WholeStringMustMatch) {
  const Tensor x = strs({2, 2}, {"abc123", "abc", "xabc123", "ABC1"});
  expect_tensor_eq(run_domain1(node("RegexFullMatch", 20, {{"pattern", attr_string("[a-z]+\\d+")}}, {x})),
                   bools({2, 2}, {1, 0, 1, 0}));
  expect_tensor_eq(run_domain1(node("RegexFullMatch", 20, {{"pattern", attr_string("(?:ab|x)+c?\\b.*")}},
                                    {strs({3}, {"abxc", "c", ""})})),
                   bools({3}, {1, 0, 0}));
  expect_tensor_eq(run_domain1(node("RegexFullMatch", 20, {{"pattern", attr_string("a.*")}}, {strs({0}, {})})),
                   bools({0}, {}));
}

TEST(RegexFullMatch, LongInputDoesNotExhaustTheStack) {
  Tensor x = strs({1}, {std::string(200000, 'a')});
  expect_tensor_eq(run_domain1(node("RegexFullMatch", 20, {{"pattern", attr_string("(a|b)*")}}, {x})), bools({1}, {1}));
}

TEST(RegexFullMatch, PatternsCheckedAtBuild) {
  const Tensor x = strs({1}, {"a"});
  expect_domain_error(node("RegexFullMatch", 20, {{"pattern", attr_string("(?P<n>a)")}}, {x}), StatusCode::kUnsupported,
                      {"RegexFullMatch", "opset 20", "(?P<", "RE2"});
  expect_domain_error(node("RegexFullMatch", 20, {{"pattern", attr_string("(?i)a")}}, {x}), StatusCode::kUnsupported,
                      {"(?i)"});
  expect_domain_error(node("RegexFullMatch", 20, {{"pattern", attr_string("\\pL+")}}, {x}), StatusCode::kUnsupported,
                      {"\\p"});
  expect_domain_error(node("RegexFullMatch", 20, {{"pattern", attr_string("(a)\\1")}}, {x}), StatusCode::kInvalidModel,
                      {"back-reference", "RE2 does not accept"});
  expect_domain_error(node("RegexFullMatch", 20, {{"pattern", attr_string("a(?=b)")}}, {x}), StatusCode::kInvalidModel,
                      {"lookaround"});
  expect_domain_error(node("RegexFullMatch", 20, {{"pattern", attr_string("a(")}}, {x}), StatusCode::kInvalidModel,
                      {"does not compile"});
  expect_domain_error(node("RegexFullMatch", 20, {}, {x}), StatusCode::kInvalidModel, {"pattern", "missing"});
  // Escaped or bracketed look-alikes are fine.
  expect_tensor_eq(
      run_domain1(node("RegexFullMatch", 20, {{"pattern", attr_string("\\(\\?P[(?]")}}, {strs({1}, {"(?P("})})),
      bools({1}, {1}));
}

// ---- StringNormalizer ----------------------------------------------------------------------

TEST(StringNormalizer, StopwordsIgnoringCaseThenUpper) {
  Attrs a = {{"case_change_action", attr_string("UPPER")}, {"stopwords", attr_strings({"the", "ÄPFEL"})}};
  expect_tensor_eq(
      run_domain1(node("StringNormalizer", 10, a, {strs({1, 5}, {"The", "äpfel", "grüne", "Straße", "δx"})})),
      strs({1, 3}, {"GRÜNE", "STRAßE", "ΔX"}));
}

TEST(StringNormalizer, CaseSensitiveLowerAndAllRemoved) {
  Attrs a = {{"case_change_action", attr_string("LOWER")},
             {"is_case_sensitive", attr_int(1)},
             {"stopwords", attr_strings({"A"})}};
  expect_tensor_eq(run_domain1(node("StringNormalizer", 10, a, {strs({3}, {"A", "a", "ÉCOLE Ω"})})),
                   strs({2}, {"a", "école ω"}));
  expect_tensor_eq(run_domain1(node("StringNormalizer", 10, a, {strs({2}, {"A", "A"})})), strs({1}, {""}));
  expect_tensor_eq(run_domain1(node("StringNormalizer", 10, a, {strs({1, 1}, {"A"})})), strs({1, 1}, {""}));
}

TEST(StringNormalizer, Errors) {
  expect_domain_error(node("StringNormalizer", 10, {}, {strs({2, 2}, {"a", "b", "c", "d"})}), StatusCode::kInvalidModel,
                      {"StringNormalizer", "[1, C]", "[2, 2]"});
  expect_domain_error(node("StringNormalizer", 10, {{"case_change_action", attr_string("TITLE")}}, {strs({1}, {"a"})}),
                      StatusCode::kInvalidModel, {"TITLE"});
}

// ---- TfIdfVectorizer -----------------------------------------------------------------------

// Pool: unigrams {1, 2}, bigrams {(1, 2), (2, 1)}; slots 0..3.
Attrs tfidf_attrs(const std::string& mode, int64_t min_gram, int64_t max_gram, int64_t skip) {
  return {{"mode", attr_string(mode)},
          {"min_gram_length", attr_int(min_gram)},
          {"max_gram_length", attr_int(max_gram)},
          {"max_skip_count", attr_int(skip)},
          {"ngram_counts", attr_ints({0, 2})},
          {"ngram_indexes", attr_ints({0, 1, 2, 3})},
          {"pool_int64s", attr_ints({1, 2, 1, 2, 2, 1})}};
}

TEST(TfIdfVectorizer, CountsWithSkips) {
  // Row [1, 3, 2, 1]: unigrams 1 x2, 2 x1. Bigrams with gap 1: (1,3) (3,2) (2,1) -> (2,1) once;
  // gap 2: (1,2) (3,1) -> (1,2) once; gap 3: (1,1).
  const Tensor x = i64({1, 4}, {1, 3, 2, 1});
  expect_tensor_eq(run_domain1(node("TfIdfVectorizer", 9, tfidf_attrs("TF", 1, 2, 0), {x})), f32({1, 4}, {2, 1, 0, 1}));
  expect_tensor_eq(run_domain1(node("TfIdfVectorizer", 9, tfidf_attrs("TF", 1, 2, 2), {x})), f32({1, 4}, {2, 1, 1, 1}));
  expect_tensor_eq(run_domain1(node("TfIdfVectorizer", 9, tfidf_attrs("TF", 2, 2, 2), {x})), f32({1, 4}, {0, 0, 1, 1}));
  // int32 input, 1-D.
  expect_tensor_eq(run_domain1(node("TfIdfVectorizer", 9, tfidf_attrs("TF", 1, 1, 5), {i32({3}, {2, 2, 7})})),
                   f32({4}, {0, 2, 0, 0}));
}

TEST(TfIdfVectorizer, IdfAndTfidfWithWeightsOnStrings) {
  Attrs a = {{"mode", attr_string("TFIDF")},
             {"min_gram_length", attr_int(1)},
             {"max_gram_length", attr_int(1)},
             {"max_skip_count", attr_int(0)},
             {"ngram_counts", attr_ints({0})},
             {"ngram_indexes", attr_ints({1, 0})},
             {"pool_strings", attr_strings({"cat", "dog"})},
             {"weights", attr_floats({0.5f, 2.f})}};
  const Tensor x = strs({2, 3}, {"cat", "cat", "dog", "bird", "bird", "bird"});
  // "cat" -> slot 1 (weight 2), "dog" -> slot 0 (weight 0.5).
  expect_tensor_eq(run_domain1(node("TfIdfVectorizer", 9, a, {x})), f32({2, 2}, {0.5f, 4.f, 0, 0}));
  a["mode"] = attr_string("IDF");
  expect_tensor_eq(run_domain1(node("TfIdfVectorizer", 9, a, {x})), f32({2, 2}, {0.5f, 2.f, 0, 0}));
  a.erase("weights");
  expect_tensor_eq(run_domain1(node("TfIdfVectorizer", 9, a, {x})), f32({2, 2}, {1, 1, 0, 0}));
}

TEST(TfIdfVectorizer, Errors) {
  expect_domain_error(node("TfIdfVectorizer", 9, tfidf_attrs("BM25", 1, 2, 0), {i64({2}, {1, 2})}),
                      StatusCode::kInvalidModel, {"TfIdfVectorizer", "mode", "BM25"});
  expect_domain_error(node("TfIdfVectorizer", 9, tfidf_attrs("TF", 1, 2, 0), {strs({1}, {"a"})}),
                      StatusCode::kUnsupported, {"TfIdfVectorizer", "opset 9", "string"});
  expect_domain_error(node("TfIdfVectorizer", 9, tfidf_attrs("TF", 1, 2, 0), {i64({1, 1, 2}, {1, 2})}),
                      StatusCode::kInvalidModel, {"[C] or [N, C]"});
  Attrs bad = tfidf_attrs("TF", 1, 2, 0);
  bad["ngram_counts"] = attr_ints({0, 3});  // 3 bigram items: not a whole number of bigrams
  expect_domain_error(node("TfIdfVectorizer", 9, bad, {i64({2}, {1, 2})}), StatusCode::kInvalidModel,
                      {"multiple of 2"});
}

// Issue 24: a huge max_gram_length (or min_gram_length) counted n-gram lengths up to it, for
// minutes; the pool (2 entries in ngram_counts) holds nothing longer than 2, as ONNX Runtime says.
// A huge max_skip_count is valid and stops at the row's end.
TEST(TfIdfVectorizer, GramLengthsBeyondThePoolAreRefusedAndHugeSkipsEnd) {
  const Tensor x = i64({1, 4}, {1, 3, 2, 1});
  for (int64_t max_gram : {int64_t{3}, int64_t{1000000000}, int64_t{1} << 40, std::numeric_limits<int64_t>::max()})
    expect_domain_error(
        node("TfIdfVectorizer", 9, tfidf_attrs("TF", 1, max_gram, 0), {x}), StatusCode::kInvalidModel,
        {"TfIdfVectorizer", "max_gram_length = " + std::to_string(max_gram), "ngram_counts [0, 2] has 2 entries"});
  expect_domain_error(node("TfIdfVectorizer", 9, tfidf_attrs("TF", 1000000000, 1000000000, 0), {x}),
                      StatusCode::kInvalidModel, {"min_gram_length = 1000000000", "ngram_counts [0, 2]"});
  for (int64_t skip : {int64_t{1000000000}, std::numeric_limits<int64_t>::max()})
    expect_tensor_eq(run_domain1(node("TfIdfVectorizer", 9, tfidf_attrs("TF", 1, 2, skip), {x})),
                     f32({1, 4}, {2, 1, 1, 1}));
}

}  // namespace
}  // namespace hi::test
