/* Two servers in one program, each from its own IDL (shop.mcp.yaml, billing.mcp.yaml), both
 * importing common.mcp.yaml: one C type per shared type (common_Address, common_Money), one
 * descriptor for each, compiled once in common.mcp.c. The first argument chooses the server. */
#include <string.h>

#include "billing.mcp.h"
#include "shop.mcp.h"

/* One helper serves both servers: the shared types are the same C types. */
static void describe(const common_Address *a, common_Money *out)
{
    *out = (common_Money){.amount = (int64_t)strlen(a->city), .currency = "EUR"};
    out->note = a->kind == common_Address_kind_work ? "work" : "home";
    out->has_note = true;
}

mcp_status shop_find_store(mcp_call *call, const shop_find_store_args *in, shop_Store *out)
{
    static common_Color colors[1];
    (void)call;
    colors[0] = in->color;
    *out = (shop_Store)shop_Store_init_default;
    out->place = (geo_Place){.name = "Corner shop", .address = in->near};
    out->colors = (shop_Color_set){1, colors};
    out->delivery = &in->near;
    return MCP_OK;
}

mcp_status shop_price(mcp_call *call, const shop_price_args *in, common_Money *out)
{
    (void)call;
    *out = (common_Money){.amount = (int64_t)strlen(in->item), .currency = "EUR"};
    return MCP_OK;
}

mcp_status shop_addresses(mcp_call *call, const shop_addresses_args *in, shop_Address_list *out)
{
    static common_Address one[1];
    (void)call;
    one[0] = (common_Address)common_Address_init_default;
    one[0].street = "Main street";
    one[0].city = in->city;
    *out = (shop_Address_list){1, one};
    return MCP_OK;
}

mcp_status billing_invoice(mcp_call *call, const billing_invoice_args *in, common_Money *out)
{
    (void)call;
    describe(&in->to, out);
    for (size_t i = 0; i < in->lines.len; i++)
        out->amount += in->lines.items[i].amount;
    return MCP_OK;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "billing") == 0)
        return mcp_main(&billing_server, argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "shop") == 0)
        return mcp_main(&shop_server, argc - 1, argv + 1);
    return 2;
}
