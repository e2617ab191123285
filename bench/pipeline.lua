-- wrk script for bench/peers.py: 16 pipelined requests per write, as
-- rafale --pipeline 16 and h2load -m 16 do.
init = function(args)
   local r = {}
   for i = 1, 16 do
      r[i] = wrk.format(nil, "/")
   end
   req = table.concat(r)
end

request = function()
   return req
end
