// The example's UDF: an order line's total, price times quantity.
__device__ double total(double price, long long quantity)
{
    return price * (double)quantity;
}
