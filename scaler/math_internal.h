/* scaler/math_internal.h: the expression tree math.c builds and math_eval.c walks; not
 * public. */
#ifndef SCALER_MATH_INTERNAL_H
#define SCALER_MATH_INTERNAL_H

#include "scaler/math.h"

enum math_node_kind { MN_NUM, MN_STR, MN_ID, MN_KW, MN_NEG, MN_BIN, MN_CALL, MN_ARRAY };
enum math_op {
    MO_ADD,
    MO_SUB,
    MO_MUL,
    MO_DIV,
    MO_POW,
    MO_EQ,
    MO_NE,
    MO_LT,
    MO_LE,
    MO_GT,
    MO_GE,
    MO_AND,
    MO_OR
};

struct math_node {
    enum math_node_kind kind;
    int pos; /* 1-based */
    double num;
    char *str; /* MN_STR text, MN_ID id, MN_KW / MN_CALL name */
    enum math_op op;
    struct math_node **args; /* MN_NEG 1, MN_BIN 2, MN_CALL / MN_ARRAY n */
    int nargs;
};

struct sc_math_expr {
    struct math_node *root;
};

#endif
